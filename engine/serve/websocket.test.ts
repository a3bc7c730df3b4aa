import { type IncomingMessage, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WsConnection, acceptKey, acceptWebSocket } from './websocket.ts';
import { clientFrame, parseServerFrames, upgrade, waitFor } from './test-client.ts';

let server: Server;
let port: number;
const messages: string[] = [];
let last: WsConnection | null = null;
let lastSocket: Duplex | null = null;

beforeAll(async () => {
  server = createServer();
  server.on('upgrade', (req, socket, head: Buffer) => {
    const ws = acceptWebSocket(req, socket, head, {
      maxMessageBytes: 1000,
      maxBufferedBytes: 1 << 20,
    });
    if (!ws) return;
    last = ws;
    lastSocket = socket;
    ws.onMessage = (text) => {
      messages.push(text);
      ws.send(`echo:${text}`);
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const frames = (buf: Buffer[]): { opcode: number; text: string }[] =>
  parseServerFrames(Buffer.concat(buf)).map((f) => ({
    opcode: f.opcode,
    text: f.payload.toString('utf8'),
  }));

describe('minimal RFC 6455 server', () => {
  it('computes the accept key of the RFC example', () => {
    expect(acceptKey('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  it('refuses a bad handshake', async () => {
    expect((await upgrade(port, '/', { 'Sec-WebSocket-Key': 'short' })).status).toBe(400);
    expect((await upgrade(port, '/', { 'Sec-WebSocket-Version': '8' })).status).toBe(426);
  });

  it('receives masked, fragmented and multi-byte text and answers pings', async () => {
    const c = await upgrade(port, '/');
    expect(c.status).toBe(101);
    const s = c.socket!;
    s.write(clientFrame(0x1, Buffer.from('héllo')));
    s.write(
      Buffer.concat([
        clientFrame(0x1, Buffer.from('ab'), false),
        clientFrame(0x0, Buffer.from('cd')),
      ]),
    );
    const big = 'x'.repeat(300); // 16-bit length
    const frame = clientFrame(0x1, Buffer.from(big));
    s.write(frame.subarray(0, 5)); // split across TCP writes
    await new Promise((r) => setTimeout(r, 20));
    s.write(frame.subarray(5));
    s.write(clientFrame(0x9, Buffer.from('p')));
    await waitFor(() => frames(c.received).length >= 4);
    expect(messages.slice(-3)).toEqual(['héllo', 'abcd', big]);
    const got = frames(c.received);
    expect(got.slice(0, 3).map((f) => f.text)).toEqual(['echo:héllo', 'echo:abcd', `echo:${big}`]);
    expect(got[3]).toEqual({ opcode: 0xa, text: 'p' });
    last!.close();
    expect(last!.isOpen).toBe(false);
  });

  it('closes on unmasked, binary, oversized and invalid UTF-8 frames', async () => {
    const cases: [Buffer, number][] = [
      [Buffer.from([0x81, 0x01, 0x61]), 1002], // unmasked
      [clientFrame(0x2, Buffer.from([1, 2])), 1003],
      [clientFrame(0x1, Buffer.alloc(2000, 0x61)), 1009],
      [clientFrame(0x1, Buffer.from([0xff, 0xfe])), 1007],
      // A message in endless empty pieces: no bytes, but each piece is held until the last.
      [
        Buffer.concat([
          clientFrame(0x1, Buffer.from('a'), false),
          ...Array<Buffer>(2000).fill(clientFrame(0x0, Buffer.alloc(0), false)),
        ]),
        1009,
      ],
    ];
    for (const [bytes, code] of cases) {
      const c = await upgrade(port, '/');
      c.socket!.write(bytes);
      await waitFor(() => frames(c.received).some((f) => f.opcode === 0x8));
      const close = parseServerFrames(Buffer.concat(c.received)).find((f) => f.opcode === 0x8)!;
      expect(close.payload.readUInt16BE(0)).toBe(code);
    }
  });

  it('drops a client that never reads instead of queueing events without bound', async () => {
    const c = await upgrade(port, '/');
    c.socket!.pause(); // a frozen tab: the kernel buffers fill, then Node's queue grows
    const ws = last!;
    let closed = false;
    ws.onClose = () => (closed = true);
    const event = 'e'.repeat(64 << 10);
    for (let i = 0; i < 400 && ws.isOpen; i++) {
      ws.send(event);
      await new Promise((r) => setImmediate(r));
    }
    expect(ws.isOpen).toBe(false); // 25 MiB sent: far past the kernel buffers and the 1 MiB cap
    expect(closed).toBe(true);
    c.socket!.destroy();
  });

  it('drops a client that sends pings but never reads the pongs', async () => {
    const c = await upgrade(port, '/');
    c.socket!.pause(); // it writes, but never reads
    const ws = last!;
    const ping = clientFrame(0x9, Buffer.alloc(125, 0x70));
    const burst = Buffer.concat(Array<Buffer>(8000).fill(ping)); // 1 MiB of pings
    for (let i = 0; i < 40 && ws.isOpen; i++) {
      c.socket!.write(burst);
      await new Promise((r) => setTimeout(r, 20));
    }
    // 40 MiB of pongs asked for: far past the kernel buffers and the 1 MiB cap.
    await waitFor(() => !ws.isOpen);
    c.socket!.destroy();
  });

  it('drops a client that does not answer its close, instead of waiting on it for good', async () => {
    const c = await upgrade(port, '/');
    c.socket!.pause(); // a frozen tab: it neither reads the close frame nor answers it
    const socket = lastSocket!;
    last!.close(1001, 'server stopping');
    expect(socket.destroyed).toBe(false); // the client has its chance to answer first
    await waitFor(() => socket.destroyed, 3000);
    c.socket!.destroy();
  });

  it('keeps nothing a client sends after the connection closed', async () => {
    // A socket in memory: what it is sent is dropped, what it "receives" is pushed below.
    const socket = new Duplex({ read() {}, write: (_c, _e, done) => done() });
    const req = { method: 'GET', headers: { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } };
    const ws = acceptWebSocket(req as unknown as IncomingMessage, socket, Buffer.alloc(0))!;
    socket.push(Buffer.from([0x81, 0x01, 0x61])); // unmasked: the server closes (1002)
    await waitFor(() => !ws.isOpen);
    // A client that goes on sending in the second its close is awaited: 64 MiB of it.
    const chunk = Buffer.alloc(4 << 20, 0x61);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 16; i++) {
      socket.push(chunk);
      await new Promise((r) => setImmediate(r));
    }
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 << 20);
    socket.destroy();
  });

  it('answers a close with its code, or 1002 when that code may not be sent back', async () => {
    const code = (c: number): Buffer => Buffer.from([c >> 8, c & 0xff]);
    const cases: [Buffer, number][] = [
      [code(1000), 1000],
      [code(4001), 4001],
      [code(1005), 1002], // "no status": reserved, never on the wire
      [code(1006), 1002],
      [code(0), 1002],
      [code(5000), 1002],
      [Buffer.from([0x03]), 1002], // a code needs two bytes
      [Buffer.alloc(0), 1000],
    ];
    for (const [payload, expected] of cases) {
      const c = await upgrade(port, '/');
      c.socket!.write(clientFrame(0x8, payload));
      await waitFor(() => frames(c.received).some((f) => f.opcode === 0x8));
      const close = parseServerFrames(Buffer.concat(c.received)).find((f) => f.opcode === 0x8)!;
      expect(close.payload.readUInt16BE(0), payload.toString('hex')).toBe(expected);
      c.socket!.destroy();
    }
  });
});
