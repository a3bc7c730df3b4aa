// Browser mode: the application API over node:http (POST /api/invoke/<name>) and a WebSocket
// (/api/events) on 127.0.0.1 only, guarded by a random per-launch token, the Host and Origin
// headers; plus the built renderer as static files under a strict CSP. Like Jupyter's server.
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Reply } from '../api/contract.ts';
import { type Engine, createEngine } from '../api/handlers.ts';
import {
  isHostAllowed,
  isOriginAllowed,
  isTokenValid,
  presentedToken,
  securityHeaders,
} from './security.ts';
import { serveStatic } from './static.ts';
import { type WsConnection, acceptWebSocket, rejectUpgrade } from './websocket.ts';
import { packageVersion } from '../version.ts';

export interface ServerOptions {
  dataDir: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Only loopback is allowed: '127.0.0.1' (default) or 'localhost'. */
  host?: string;
  /** The built renderer (default: out/renderer of this checkout). */
  rendererDir?: string;
  resourcesDir?: string;
  version?: string;
}

export interface RunningServer {
  /** The address to open, token included. */
  url: string;
  origin: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 << 20;
const API_PREFIX = '/api/';
/** How long the body of a request answered without its upgrade may stop arriving (as Node's headersTimeout). */
const UPGRADED_IDLE_MS = 60_000;

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

function errorReply(
  code: 'unauthorized' | 'invalid-request' | 'unknown-request' | 'internal',
  message: string,
): Reply<never> {
  return { ok: false, error: { code, message } };
}

/** The body's bytes, or null past the size limit; with `isKept` false, read and dropped. */
async function readBody(req: AsyncIterable<unknown>, isKept = true): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    if (isKept) chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The arguments a body holds, or null when it is not UTF-8 JSON. */
function parseArgs(body: Buffer): { args: unknown } | null {
  try {
    // NOTE: fatal decoding: a body in another encoding (Latin-1 "é") would otherwise have its
    // characters replaced by U+FFFD and be saved that way without a word.
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    return { args: text === '' ? {} : JSON.parse(text) };
  } catch {
    return null;
  }
}

/** Why browser mode will not listen on `host`, or undefined for a loopback name it takes. */
export function hostProblem(host: string): string | undefined {
  // ::1 is this computer too, but the Host and Origin checks and the page's CSP name 127.0.0.1.
  if (host === '127.0.0.1' || host === 'localhost') return undefined;
  return `--host "${host}" is refused: browser mode listens on 127.0.0.1 only (this computer); give --host 127.0.0.1 or localhost, or leave it out.`;
}

/** Starts browser mode; resolves once it listens. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const refused = hostProblem(host);
  if (refused !== undefined) throw new Error(refused);
  const rendererDir =
    opts.rendererDir ?? fileURLToPath(new URL('../../out/renderer/', import.meta.url));
  const token = randomBytes(24).toString('base64url');
  const sockets = new Set<WsConnection>();
  let port = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent)
        // Not the client's mistake ('invalid-request' said it was): something failed here.
        sendJson(
          res,
          500,
          errorReply('internal', 'Benchtop could not answer this request; try again, and report it if it keeps happening.'),
          securityHeaders(port),
        );
      else res.destroy();
    });
  });

  /** Answers one request; `body` is where its bytes come from (the request itself but after an upgrade). */
  async function handle(req: IncomingMessage, res: ServerResponse, body: AsyncIterable<unknown> = req): Promise<void> {
    const headers = securityHeaders(port);
    const declared = Number(req.headers['content-length'] ?? 0);
    /**
     * The headers of an answer that does not use the body (a refusal, a page), which is read and
     * dropped meanwhile, up to the size limit: past it (or declared past it) the connection
     * closes. Node alone went on taking a body of any size, even from a client without the
     * token; read, not cut off at once, so that a page with an old token gets its 401 rather
     * than a reset connection.
     */
    const dropBody = (): Record<string, string> => {
      if (declared > MAX_BODY_BYTES) return { ...headers, Connection: 'close' };
      // NOTE: the socket taken now: the request lets go of it once the answer is out.
      const socket = req.socket;
      void readBody(body, false).then(
        (bytes) => bytes === null && socket.destroy(),
        () => socket.destroy(),
      );
      return headers;
    };
    if (!isHostAllowed(req, port))
      return sendJson(res, 403, errorReply('unauthorized', 'Unknown host.'), dropBody());
    const url = requestUrl(req, port);
    if (url === null)
      return sendJson(res, 400, errorReply('invalid-request', 'Malformed request path.'), dropBody());
    if (!url.pathname.startsWith(API_PREFIX)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { ...dropBody(), Allow: 'GET, HEAD' });
        return void res.end();
      }
      const file = await serveStatic(rendererDir, url.pathname);
      const cache = file.type.startsWith('text/html') ? 'no-store' : 'no-cache';
      res.writeHead(file.status, {
        ...dropBody(),
        'Content-Type': file.type,
        'Cache-Control': cache,
        'Content-Length': file.body.length,
      });
      return void res.end(req.method === 'HEAD' ? undefined : file.body);
    }
    if (!isOriginAllowed(req, port))
      return sendJson(
        res,
        403,
        errorReply('unauthorized', 'Requests from other sites are refused.'),
        dropBody(),
      );
    if (!isTokenValid(presentedToken(req, url), token)) {
      return sendJson(
        res,
        401,
        errorReply(
          'unauthorized',
          'Open Benchtop with the address printed when it started (it contains the access token).',
        ),
        dropBody(),
      );
    }
    if (url.pathname === '/api/status') {
      // HEAD is GET without the body (Node leaves it out); it was answered "Unknown API path".
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendJson(
          res,
          405,
          errorReply('invalid-request', 'Ask for /api/status with GET.'),
          { ...dropBody(), Allow: 'GET, HEAD' },
        );
      return sendJson(
        res,
        200,
        { ok: true, value: { token, version: opts.version ?? packageVersion() } },
        dropBody(),
      );
    }
    const name = url.pathname.startsWith('/api/invoke/')
      ? safeDecode(url.pathname.slice('/api/invoke/'.length))
      : null;
    if (name === null)
      return sendJson(res, 404, errorReply('unknown-request', 'Unknown API path.'), dropBody());
    if (req.method !== 'POST')
      return sendJson(
        res,
        405,
        errorReply(
          'invalid-request',
          'Send API requests with POST, their arguments as a JSON body.',
        ),
        { ...dropBody(), Allow: 'POST' },
      );
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendJson(
        res,
        415,
        errorReply('invalid-request', 'Send the arguments as application/json.'),
        dropBody(),
      );
    }
    // A declared size past the limit is refused before a byte of the body is read.
    const bytes = declared > MAX_BODY_BYTES ? null : await readBody(body);
    // The connection closes after the refusal: kept open, it went on taking (and dropping) the
    // rest of a body of any size the client chose to send.
    if (bytes === null)
      return sendJson(
        res,
        413,
        errorReply('invalid-request', 'The request is too large.'),
        { ...headers, Connection: 'close' },
      );
    const parsed = parseArgs(bytes);
    if (parsed === null)
      return sendJson(
        res,
        400,
        errorReply('invalid-request', 'The arguments are not valid JSON in UTF-8.'),
        headers,
      );
    sendJson(res, 200, await engine.invoke(name, parsed.args), headers);
  }

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // Node removes its own error listener from upgraded sockets: a reset must not crash us.
    socket.on('error', () => socket.destroy());
    if (!/(^|,)\s*websocket\s*(,|$)/i.test(req.headers.upgrade ?? '')) return answerWithoutUpgrade(req, socket, head);
    if (!isHostAllowed(req, port) || !isOriginAllowed(req, port))
      return rejectUpgrade(socket, 403, 'Forbidden');
    const url = requestUrl(req, port);
    if (url === null) return rejectUpgrade(socket, 400, 'Bad Request');
    if (url.pathname !== '/api/events') return rejectUpgrade(socket, 404, 'Not Found');
    if (!isTokenValid(presentedToken(req, url), token))
      return rejectUpgrade(socket, 401, 'Unauthorized');
    const ws = acceptWebSocket(req, socket, head);
    if (ws === null) return;
    sockets.add(ws);
    ws.onClose = () => sockets.delete(ws);
    ws.onMessage = () => {}; // events flow one way; requests use HTTP
  });

  /**
   * A request asking for another protocol (`Upgrade: h2c`, which curl --http2 sends) is answered
   * over HTTP/1.1 as if it had not asked, as RFC 9110 lets a server do: it used to get 404 for
   * any path. Node hands such a request over with its body unread: a Content-Length body is
   * read from the socket; a chunked one is refused.
   */
  function answerWithoutUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on('finish', () => {
      res.detachSocket(socket);
      // Destroyed once the answer is out, as Node ends a connection it closes: only ended, it
      // stayed open (a file descriptor each) for as long as the client kept its side open.
      socket.end(() => socket.destroy());
    });
    if (req.headers['transfer-encoding'] !== undefined) {
      const message = `A request with a chunked body cannot ask to switch protocols (Upgrade: ${req.headers.upgrade ?? ''}); send it without the Upgrade header.`;
      return sendJson(res, 400, errorReply('invalid-request', message), securityHeaders(port));
    }
    const length = Number(req.headers['content-length'] ?? 0);
    void handle(req, res, upgradedBody(head, socket, length)).catch(() => socket.destroy());
  }

  // The port first: a port that is taken must not open (or create) the data folder.
  port = await listen(server, opts.port ?? 0);
  // NOTE: no request is handled before this line: the listen callback resolved a promise, and
  // its continuation runs before the event loop polls for connections.
  let engine: Engine;
  try {
    engine = createEngine({
      dataDir: opts.dataDir,
      ...(opts.resourcesDir !== undefined && { resourcesDir: opts.resourcesDir }),
      ...(opts.version !== undefined && { version: opts.version }),
    });
  } catch (err) {
    await new Promise<void>((r) => server.close(() => r()));
    throw err;
  }
  const unsubscribe = engine.subscribe((event, payload) => {
    const frame = JSON.stringify({ event, payload });
    for (const s of sockets) s.send(frame);
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    close: async () => {
      unsubscribe();
      for (const s of sockets) s.close(1001, 'server stopping');
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await engine.close();
    },
  };
}

/** Listens on 127.0.0.1 and resolves with the port, or rejects saying what to do instead. */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolveListen, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const instead = 'choose another with --port, or --port 0 to pick a free one';
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `Port ${port} is already in use on 127.0.0.1; ${instead}.`
            : err.code === 'EACCES'
              ? `Benchtop may not listen on port ${port} (ports below 1024 need administrator rights); ${instead}.`
              : `Browser mode could not listen on 127.0.0.1:${port} (${err.code ?? err.name}); ${instead}.`,
        ),
      );
    });
    server.listen(port, '127.0.0.1', () => resolveListen((server.address() as AddressInfo).port));
  });
}

/**
 * The `length` body bytes of an upgrade request Node did not read: those it read past the
 * headers (`head`), then the socket's. Read only when iterated, after the request's checks.
 */
async function* upgradedBody(head: Buffer, socket: Socket, length: number): AsyncGenerator<Buffer> {
  const chunks = [head.subarray(0, length)];
  let got = chunks[0]!.length;
  if (got < length) {
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error): void => {
        socket.setTimeout(0);
        socket.off('data', onData).off('end', onEnd).off('close', onEnd);
        if (err) reject(err);
        else resolve();
      };
      const onData = (d: Buffer): void => {
        chunks.push(d.subarray(0, length - got));
        got += chunks.at(-1)!.length;
        if (got >= length) done();
      };
      const onEnd = (): void => done(new Error('the connection closed before the request body was sent'));
      socket.on('data', onData).on('end', onEnd).on('close', onEnd);
      // Node's request timeouts no longer watch an upgraded socket: a body never sent must not
      // hold it open for good.
      socket.setTimeout(UPGRADED_IDLE_MS, () => done(new Error('the request body stopped arriving')));
    });
  }
  yield Buffer.concat(chunks);
}

/** The request's URL, or null when its target does not parse (e.g. `GET http://[bad`). */
function requestUrl(req: IncomingMessage, port: number): URL | null {
  try {
    return new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
  } catch {
    return null;
  }
}

/** A URL path segment decoded, or null when its percent-escapes are malformed. */
function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
