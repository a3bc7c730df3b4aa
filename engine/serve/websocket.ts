// The small server side of RFC 6455 that browser mode needs: the opening handshake over a node
// http 'upgrade', masked client frames (text, fragmented text, ping, close), unmasked text
// frames out. Binary frames, extensions and subprotocols are refused. Not a general library.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP_CONT = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;
/** Most frames one message may be split into (browsers send one). */
const MAX_FRAGMENTS = 1024;
/** How long a connection we closed waits for the client's close before it is dropped. */
const CLOSE_WAIT_MS = 1000;

export interface WsConnection {
  readonly isOpen: boolean;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onMessage: (text: string) => void;
  onClose: () => void;
}

export interface WsOptions {
  /** Largest message accepted (bytes, after reassembly); larger closes with 1009. */
  maxMessageBytes?: number;
  /** Most bytes queued for a client that does not read; past it the socket is dropped. */
  maxBufferedBytes?: number;
}

/** The Sec-WebSocket-Accept value for a client key. */
export function acceptKey(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64');
}

/** Answers an upgrade request with an HTTP error and drops the socket. */
export function rejectUpgrade(socket: Duplex, status: number, text: string): void {
  const body = `${text}\n`;
  // Destroyed once the answer is out: only ended, the socket stayed open for as long as the
  // client (without the token, say) kept its side open.
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** Encodes one unmasked server frame. */
export function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, payload]);
}

/**
 * Completes the handshake for a valid upgrade request and returns the connection, or answers
 * 400/426 and returns null. Authentication and Origin checks belong to the caller, before this.
 */
export function acceptWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  opts: WsOptions = {},
): WsConnection | null {
  const key = req.headers['sec-websocket-key'];
  const isUpgrade = (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
  if (
    req.method !== 'GET' ||
    !isUpgrade ||
    typeof key !== 'string' ||
    Buffer.from(key, 'base64').length !== 16
  ) {
    rejectUpgrade(socket, 400, 'Bad Request');
    return null;
  }
  if (req.headers['sec-websocket-version'] !== '13') {
    rejectUpgrade(socket, 426, 'Upgrade Required');
    return null;
  }
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
  );
  return new Connection(
    socket,
    head,
    opts.maxMessageBytes ?? 1 << 20,
    opts.maxBufferedBytes ?? 16 << 20,
  );
}

/**
 * The code to answer a client's close frame with: its own code when one may be sent back, else
 * 1002 (RFC 6455 §7.4: 1005, 1006 and 1015 never go on the wire; a 1-byte payload is malformed).
 */
function closeReplyCode(payload: Buffer): number {
  if (payload.length === 0) return 1000;
  if (payload.length === 1) return 1002;
  const code = payload.readUInt16BE(0);
  const isSendable =
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999);
  return isSendable ? code : 1002;
}

class Connection implements WsConnection {
  onMessage: (text: string) => void = () => {};
  onClose: () => void = () => {};
  #socket: Duplex;
  #buffer: Buffer;
  #fragments: Buffer[] = [];
  #fragmentBytes = 0;
  #isOpen = true;
  #maxBytes: number;
  #maxBuffered: number;
  #decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(socket: Duplex, head: Buffer, maxBytes: number, maxBuffered: number) {
    this.#socket = socket;
    this.#buffer = Buffer.from(head);
    this.#maxBytes = maxBytes;
    this.#maxBuffered = maxBuffered;
    socket.on('data', (chunk: Buffer) => {
      // Closed: what the client goes on sending until the socket goes (up to CLOSE_WAIT_MS after
      // our close frame) is dropped. It used to be appended to a buffer nothing read any more.
      if (!this.#isOpen) return;
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#drain();
    });
    socket.on('close', () => this.#closed());
    socket.on('error', () => this.#closed());
    if (this.#buffer.length > 0) queueMicrotask(() => this.#drain());
  }

  get isOpen(): boolean {
    return this.#isOpen;
  }

  send(text: string): void {
    if (this.#isOpen) this.#write(encodeFrame(OP_TEXT, Buffer.from(text, 'utf8')));
  }

  /** Queues a frame, or drops a client that has stopped reading what it was sent. */
  #write(frame: Buffer): void {
    // A client that stops reading would make every event (and every pong to its pings) pile
    // up in memory: drop it instead (the browser reconnects and reloads state when it wakes up).
    if (this.#socket.writableLength > this.#maxBuffered) {
      this.#closed();
      this.#socket.destroy();
      return;
    }
    this.#socket.write(frame);
  }

  close(code = 1000, reason = ''): void {
    if (!this.#isOpen) return;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.#socket.end(encodeFrame(OP_CLOSE, payload));
    // A client that never answers (a frozen tab) held the socket, and with it the server's stop
    // and the workspace, for as long as it lived. RFC 6455 §7.1.1 lets the server drop it.
    const drop = setTimeout(() => this.#socket.destroy(), CLOSE_WAIT_MS);
    this.#socket.once('close', () => clearTimeout(drop));
    this.#closed();
  }

  #closed(): void {
    if (!this.#isOpen) return;
    this.#isOpen = false;
    this.#buffer = Buffer.alloc(0);
    this.onClose();
  }

  #drain(): void {
    while (this.#isOpen) {
      const frame = this.#nextFrame();
      if (frame === null) return;
      this.#handle(frame.fin, frame.opcode, frame.payload);
    }
  }

  /** Parses one complete frame off the buffer, or returns null when more bytes are needed. */
  #nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | null {
    const b = this.#buffer;
    if (b.length < 2) return null;
    const fin = (b[0]! & 0x80) !== 0;
    if ((b[0]! & 0x70) !== 0) return this.#fail(1002, 'reserved bits set');
    const opcode = b[0]! & 0x0f;
    const isMasked = (b[1]! & 0x80) !== 0;
    if (!isMasked) return this.#fail(1002, 'client frames must be masked');
    let len = b[1]! & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (b.length < 4) return null;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return null;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.#maxBytes)) return this.#fail(1009, 'message too big');
      len = Number(big);
      offset = 10;
    }
    if (len > this.#maxBytes) return this.#fail(1009, 'message too big');
    if (b.length < offset + 4 + len) return null;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + len));
    for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
    this.#buffer = b.subarray(offset + 4 + len);
    return { fin, opcode, payload };
  }

  #handle(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode >= OP_CLOSE) {
      if (!fin || payload.length > 125) return void this.#fail(1002, 'bad control frame');
      if (opcode === OP_PING) this.#write(encodeFrame(OP_PONG, payload));
      else if (opcode === OP_CLOSE) this.close(closeReplyCode(payload));
      else if (opcode !== OP_PONG) this.#fail(1002, 'unknown opcode');
      return;
    }
    if (opcode === OP_BINARY) return void this.#fail(1003, 'text frames only');
    if (opcode === OP_TEXT && this.#fragments.length > 0)
      return void this.#fail(1002, 'expected a continuation');
    if (opcode === OP_CONT && this.#fragments.length === 0)
      return void this.#fail(1002, 'unexpected continuation');
    if (opcode !== OP_TEXT && opcode !== OP_CONT) return void this.#fail(1002, 'unknown opcode');
    this.#fragmentBytes += payload.length;
    if (this.#fragmentBytes > this.#maxBytes) return void this.#fail(1009, 'message too big');
    // Empty pieces add no bytes but each costs memory: a message may come in so many pieces only.
    if (this.#fragments.length >= MAX_FRAGMENTS)
      return void this.#fail(1009, 'message in too many pieces');
    this.#fragments.push(payload);
    if (!fin) return;
    const whole = Buffer.concat(this.#fragments);
    this.#fragments = [];
    this.#fragmentBytes = 0;
    let text: string;
    try {
      text = this.#decoder.decode(whole);
    } catch {
      return void this.#fail(1007, 'invalid UTF-8');
    }
    this.onMessage(text);
  }

  #fail(code: number, reason: string): null {
    this.close(code, reason);
    return null;
  }
}
