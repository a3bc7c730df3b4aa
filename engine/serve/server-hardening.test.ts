// Browser mode against a buggy or hostile client: bodies in the wrong encoding, a port that is
// taken, and what a refused start leaves behind.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { globalAgent, request } from 'node:http';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace } from '../store/db.ts';
import { type RunningServer, startServer } from './server.ts';
import { upgrade, waitFor } from './test-client.ts';

let dir: string;
let server: RunningServer;

/** POSTs `body` (bytes as given) to a request with the token; resolves with status and reply. */
function invoke(name: string, body: Buffer | string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `/api/invoke/${name}`,
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Listens on `port` (0: any free one) and closes again; resolves with the port. */
function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const taken = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(taken));
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-serve-hard-'));
  const web = join(dir, 'web');
  mkdirSync(web);
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Benchtop</title>');
  server = await startServer({ dataDir: join(dir, 'data'), port: 0, rendererDir: web });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('browser-mode server input', () => {
  it('refuses a body that is not UTF-8 instead of saving replacement characters', async () => {
    // "Café" in Latin-1: the é byte alone is not UTF-8.
    const latin1 = Buffer.from('{"name":"Caf\xe9 notes"}', 'latin1');
    const res = await invoke('projects:create', latin1);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      ok: false,
      error: { code: 'invalid-request', message: 'The arguments are not valid JSON in UTF-8.' },
    });
    const list = JSON.parse((await invoke('projects:list', '{}')).body) as {
      value: { name: string }[];
    };
    expect(list.value.map((p) => p.name).filter((n) => n.startsWith('Caf'))).toEqual([]);
    // The same name in UTF-8 is kept exactly.
    const ok = JSON.parse((await invoke('projects:create', '{"name":"Café notes"}')).body) as {
      value: { name: string };
    };
    expect(ok.value.name).toBe('Café notes');
  });
});

describe('browser-mode methods', () => {
  it('answers a request sent with the wrong method by naming the right one, not as an unknown path', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/invoke/projects:list`, {
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({
      ok: false,
      error: {
        code: 'invalid-request',
        message: 'Send API requests with POST, their arguments as a JSON body.',
      },
    });
    // /api/status is there for GET and HEAD (GET without the body); other methods are named.
    const status = (method: string): Promise<Response> =>
      fetch(`http://127.0.0.1:${server.port}/api/status`, { method, headers: { Authorization: `Bearer ${server.token}` } });
    const head = await status('HEAD');
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'application/json; charset=utf-8', '']);
    for (const method of ['OPTIONS', 'POST', 'DELETE']) {
      const other = await status(method);
      expect([method, other.status, other.headers.get('allow')]).toEqual([method, 405, 'GET, HEAD']);
      expect(await other.json()).toEqual({ ok: false, error: { code: 'invalid-request', message: 'Ask for /api/status with GET.' } });
    }
    const unknown = await fetch(`http://127.0.0.1:${server.port}/api/nothing`, {
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(unknown.status).toBe(404);
  });
});

/** Sends raw request bytes (`later` after a pause); resolves with all the server sent once it closes the connection. */
function rawExchange(text: string, later?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write(text);
      // The rest once the server has had the first part (no reply can come before it).
      if (later !== undefined) setTimeout(() => socket.write(later), 50);
    });
    let reply = '';
    socket.on('data', (d: Buffer) => (reply += d.toString('utf8')));
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}

/**
 * Sends `text` from a client that, once answered, never closes its side of the connection;
 * resolves with the answer and whether the server closed its own side all the same.
 */
async function halfOpenExchange(text: string): Promise<{ reply: string; isReleased: boolean }> {
  const sockets = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
  globalAgent.destroy(); // earlier requests' keep-alive connections, closing meanwhile, would skew the count
  await waitFor(() => sockets() === 0);
  const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
  let reply = '';
  socket.on('data', (d: Buffer) => (reply += d.toString('utf8')));
  socket.on('error', () => {}); // the reset of a connection the server let go of
  socket.write(text);
  await new Promise((resolve) => socket.once('end', resolve));
  // Only this client's socket left: the server's end of the connection has gone.
  const isReleased = await waitFor(() => sockets() === 1, 2000).then(() => true, () => false);
  socket.destroy();
  return { reply, isReleased };
}

describe('browser-mode protocol upgrades', () => {
  it('answers a request asking for h2c (curl --http2) over HTTP/1.1 as if it had not asked', async () => {
    const h2c = `Host: 127.0.0.1:${server.port}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n`;
    const page = await rawExchange(`GET / HTTP/1.1\r\n${h2c}\r\n`);
    expect(page).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(page).toMatch(/\r\nConnection: close\r\n/i);
    expect(page).toMatch(/\r\nContent-Security-Policy: default-src 'self'/);
    expect(page).toContain('<title>Benchtop</title>');
    // The API keeps its checks: the token, and the Host header.
    const status = await rawExchange(`GET /api/status HTTP/1.1\r\n${h2c}Authorization: Bearer ${server.token}\r\n\r\n`);
    expect(status).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(status).toContain(`"token":"${server.token}"`);
    expect(await rawExchange(`GET /api/status HTTP/1.1\r\n${h2c}\r\n`)).toMatch(/^HTTP\/1\.1 401 /);
    const foreign = h2c.replace(`127.0.0.1:${server.port}`, `attacker.example:${server.port}`);
    expect(await rawExchange(`GET / HTTP/1.1\r\n${foreign}\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
    // Its body is read from the connection (curl sends `-d` data with the upgrade request too),
    // in one piece or after a pause; a chunked one is refused in words.
    const post = (body: string): string =>
      `POST /api/invoke/projects:create HTTP/1.1\r\n${h2c}Authorization: Bearer ${server.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const body = '{"name":"h2c project"}';
    const created = await rawExchange(post(body) + body);
    expect(created).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(created).toContain('"name":"h2c project"');
    const lateBody = '{"name":"h2c project, body sent later"}';
    const late = await rawExchange(post(lateBody), lateBody);
    expect(late).toContain('"name":"h2c project, body sent later"');
    const chunked = await rawExchange(
      `POST /api/invoke/projects:create HTTP/1.1\r\n${h2c}Authorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 400 /);
    expect(chunked).toContain('A request with a chunked body cannot ask to switch protocols (Upgrade: h2c); send it without the Upgrade header.');
    const list = JSON.parse((await invoke('projects:list', '{}')).body) as { value: { name: string }[] };
    expect(list.value.map((p) => p.name).filter((n) => n.startsWith('h2c'))).toEqual(['h2c project', 'h2c project, body sent later']);
  });

  it('lets go of the connection after answering a request that asked for h2c, though the client keeps its side open', async () => {
    const { reply, isReleased } = await halfOpenExchange(
      `POST /api/invoke/projects:list HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: Upgrade, HTTP2-Settings\r\n` +
        `Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${2 ** 40}\r\n\r\n${'x'.repeat(1 << 16)}`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 401 /); // no token: refused before a byte of the body is read
    expect(isReleased).toBe(true);
  });

  it('lets go of the connection after refusing an event socket, though the client keeps its side open', async () => {
    const handshake = `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n`;
    const refusals: [string, RegExp][] = [
      [`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${handshake}\r\n`, /^HTTP\/1\.1 401 /],
      [`GET /api/events HTTP/1.1\r\nHost: attacker.example:${server.port}\r\n${handshake}\r\n`, /^HTTP\/1\.1 403 /],
    ];
    for (const [text, status] of refusals) {
      const { reply, isReleased } = await halfOpenExchange(text);
      expect(reply).toMatch(status);
      expect(isReleased).toBe(true);
    }
  });
});

describe('browser-mode request size', () => {
  it('closes the connection after refusing a body past the limit, instead of reading the rest', async () => {
    const head =
      `POST /api/invoke/projects:list HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
      `Authorization: Bearer ${server.token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${2 ** 40}\r\n\r\n`;
    // rawExchange resolves only when the server closes the connection.
    const reply = await rawExchange(head, 'x'.repeat(1 << 16));
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('closes the connection after refusing a request without the token or from elsewhere whose declared body is past the limit', async () => {
    const refused: [string, RegExp][] = [
      [`Host: 127.0.0.1:${server.port}\r\n`, /^HTTP\/1\.1 401 /],
      [`Host: 127.0.0.1:${server.port}\r\nOrigin: http://attacker.example\r\n`, /^HTTP\/1\.1 403 /],
      [`Host: attacker.example:${server.port}\r\n`, /^HTTP\/1\.1 403 /],
    ];
    for (const [lines, status] of refused) {
      const head =
        `POST /api/invoke/projects:list HTTP/1.1\r\n${lines}Content-Type: application/json\r\n` +
        `Content-Length: ${2 ** 40}\r\n\r\n`;
      // rawExchange resolves only when the server closes the connection.
      const reply = await rawExchange(head, 'x'.repeat(1 << 16));
      expect(reply).toMatch(status);
      expect(reply).toMatch(/\r\nConnection: close\r\n/i);
    }
  });

  it('drops the connection of a request answered without its body once that body, of undeclared size, passes the limit', async () => {
    // A refusal (no token) and a page: neither reads the body, which Node alone read for good.
    for (const [line, status] of [['POST /api/invoke/projects:list', /^HTTP\/1\.1 401 /], ['GET /', /^HTTP\/1\.1 200 /]] as const) {
      const socket = connect(server.port, '127.0.0.1');
      let reply = '';
      socket.on('data', (d: Buffer) => (reply += d.toString('utf8')));
      socket.on('error', () => {}); // the reset of the dropped connection
      const isClosed = new Promise<boolean>((resolve) => socket.on('close', () => resolve(true)));
      socket.write(
        `${line} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = Buffer.concat([Buffer.from('100000\r\n'), Buffer.alloc(1 << 20, 120), Buffer.from('\r\n')]);
      let sent = 0;
      const isDropped = await new Promise<boolean>((resolve) => {
        void isClosed.then(resolve);
        const pump = (): void => {
          // 1 MiB a chunk; the limit is 32 MiB: twice that is more than enough.
          while (sent < 64) {
            if (socket.destroyed) return;
            sent += 1;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
          setTimeout(() => resolve(false), 500);
        };
        pump();
      });
      socket.destroy();
      expect(reply).toMatch(status);
      expect(isDropped).toBe(true);
      expect(sent).toBeGreaterThan(32);
    }
  });
});

describe('browser-mode stop', () => {
  it('stops and lets go of the workspace while a frozen page holds the event socket', async () => {
    const data = join(dir, 'stop-data');
    const own = await startServer({ dataDir: data, port: 0, rendererDir: join(dir, 'web') });
    const page = await upgrade(own.port, `/api/events?token=${own.token}`);
    expect(page.status).toBe(101);
    page.socket!.pause(); // it never reads the close frame, nor answers it
    await own.close(); // waited on the page for as long as it stayed frozen
    openWorkspace(data).close(); // released
    page.socket!.destroy();
  }, 15_000);
});

describe('browser-mode start', () => {
  it('says a taken port is in use and leaves the data folder untouched', async () => {
    const other = join(dir, 'other-data');
    await expect(
      startServer({ dataDir: other, port: server.port, rendererDir: join(dir, 'web') }),
    ).rejects.toThrow(
      `Port ${server.port} is already in use on 127.0.0.1; choose another with --port, or --port 0 to pick a free one.`,
    );
    expect(existsSync(other)).toBe(false); // no workspace created, no lock left behind
  });

  it('refuses any host but 127.0.0.1 or localhost, saying what to give, before opening the data folder', async () => {
    const other = join(dir, 'host-data');
    for (const host of ['0.0.0.0', '::1', '192.168.1.20']) {
      await expect(startServer({ dataDir: other, host, port: 0 })).rejects.toThrow(
        `--host "${host}" is refused: browser mode listens on 127.0.0.1 only (this computer); give --host 127.0.0.1 or localhost, or leave it out.`,
      );
    }
    expect(existsSync(other)).toBe(false);
  });

  it('lets go of the port when the data folder cannot be opened', async () => {
    const port = await freePort();
    const notAFolder = join(dir, 'a-file');
    writeFileSync(notAFolder, 'not a folder');
    await expect(startServer({ dataDir: notAFolder, port })).rejects.toThrow();
    // The port is free again: the refused server does not hold it.
    await expect(freePort(port)).resolves.toBe(port);
  });
});
