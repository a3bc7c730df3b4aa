// Test helpers: a raw WebSocket client (handshake + masked frames) and fetch with a Host
// header, so the server can be tested without a browser. Tests only.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

/** Encodes one masked client frame. */
export function clientFrame(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = randomBytes(4);
  const len = payload.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (len < 126) head[1] = 0x80 | len;
  else if (len < 65536) {
    head[1] = 0x80 | 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i & 3]!;
  return Buffer.concat([head, mask, body]);
}

/** Decodes server frames from a buffer (unmasked). */
export function parseServerFrames(buf: Buffer): { opcode: number; payload: Buffer }[] {
  const out: { opcode: number; payload: Buffer }[] = [];
  let o = 0;
  while (o + 2 <= buf.length) {
    const opcode = buf[o]! & 0x0f;
    let len = buf[o + 1]! & 0x7f;
    let p = o + 2;
    if (len === 126) {
      len = buf.readUInt16BE(o + 2);
      p = o + 4;
    } else if (len === 127) {
      len = Number(buf.readBigUInt64BE(o + 2));
      p = o + 10;
    }
    if (p + len > buf.length) break;
    out.push({ opcode, payload: buf.subarray(p, p + len) });
    o = p + len;
  }
  return out;
}

export interface Upgraded {
  status: number;
  socket: Socket | null;
  received: Buffer[];
}

/** Performs the opening handshake; resolves with the 101 socket or the refusal status. */
export function upgrade(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<Upgraded> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      const received: Buffer[] = [];
      socket.on('data', (d: Buffer) => received.push(d));
      resolve({ status: res.statusCode ?? 0, socket, received });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, socket: null, received: [] });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits until `check` passes or `ms` elapse. */
export async function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
