import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './server.ts';
import { clientFrame, parseServerFrames, upgrade, waitFor } from './test-client.ts';

let dir: string;
let server: RunningServer;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with full control of the headers (fetch forbids setting Host/Origin). */
function raw(
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: opts.method ?? 'GET',
        headers: opts.headers ?? {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * Sends raw bytes (a request line Node's client would refuse to write) and returns the reply
 * once the connection closes, `until` matches it, or after a second.
 */
function rawBytes(text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(text));
    let reply = '';
    socket.on('data', (d: Buffer) => {
      reply += d.toString('latin1');
      if (until?.test(reply)) socket.destroy();
    });
    socket.on('error', () => resolve(reply));
    socket.on('close', () => resolve(reply));
    setTimeout(() => socket.destroy(), 1000);
  });
}

const auth = (): Record<string, string> => ({ Authorization: `Bearer ${server.token}` });
const json = { 'Content-Type': 'application/json' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-serve-'));
  const web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Benchtop</title>');
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'not for the browser');
  server = await startServer({ dataDir: join(dir, 'data'), port: 0, rendererDir: web });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('browser-mode server', () => {
  it('prints a loopback URL with a long random token', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('answers /api/status with the token only when the token is presented', async () => {
    expect((await raw('/api/status')).status).toBe(401);
    expect((await raw('/api/status', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(
      401,
    );
    expect((await raw(`/api/status?token=${server.token}x`)).status).toBe(401);
    const ok = await raw('/api/status', { headers: auth() });
    expect(ok.status).toBe(200);
    // The version is package.json's (browser mode is started without one).
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { token: server.token, version: pkg.version } });
    expect((await raw(`/api/status?token=${server.token}`)).status).toBe(200);
  });

  it('takes the Bearer scheme in any case, and the token only exactly', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR'])
      expect((await raw('/api/status', { headers: { Authorization: `${scheme} ${server.token}` } })).status).toBe(200);
    const upper = server.token.toUpperCase() === server.token ? server.token.toLowerCase() : server.token.toUpperCase();
    expect((await raw('/api/status', { headers: { Authorization: `bearer ${upper}` } })).status).toBe(401);
    expect((await raw('/api/status', { headers: { Authorization: `Basic ${server.token}` } })).status).toBe(401);
  });

  it('requires the token on every API request', async () => {
    const res = await raw('/api/invoke/projects:list', {
      method: 'POST',
      headers: json,
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.body).not.toContain('Demo');
  });

  it('invokes requests and returns envelopes', async () => {
    const res = await raw('/api/invoke/projects:list', {
      method: 'POST',
      headers: { ...auth(), ...json },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const reply = JSON.parse(res.body) as { ok: boolean; value: { name: string }[] };
    expect(reply.ok).toBe(true);
    expect(reply.value[0]?.name).toMatch(/Demo/);
    const bad = await raw('/api/invoke/projects:list', {
      method: 'POST',
      headers: { ...auth(), ...json },
      body: '{',
    });
    expect(bad.status).toBe(400);
    const text = await raw('/api/invoke/projects:list', {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    const unknown = await raw('/api/invoke/constructor', {
      method: 'POST',
      headers: { ...auth(), ...json },
      body: '{}',
    });
    expect(JSON.parse(unknown.body)).toMatchObject({
      ok: false,
      error: { code: 'unknown-request' },
    });
    const malformed = await raw('/api/invoke/%E0%A4%A', {
      method: 'POST',
      headers: { ...auth(), ...json },
      body: '{}',
    });
    expect(malformed.status).toBe(404);
    expect(JSON.parse(malformed.body)).toMatchObject({ ok: false, error: { code: 'unknown-request' } });
  });

  it('rejects other origins and foreign Host headers', async () => {
    const evil = await raw('/api/status', {
      headers: { ...auth(), Origin: 'http://evil.example' },
    });
    expect(evil.status).toBe(403);
    const own = await raw('/api/status', { headers: { ...auth(), Origin: server.origin } });
    expect(own.status).toBe(200);
    const rebinding = await raw('/api/status', {
      headers: { ...auth(), Host: `evil.example:${server.port}` },
    });
    expect(rebinding.status).toBe(403);
  });

  it('serves the renderer with a strict CSP and refuses path traversal', async () => {
    const index = await raw('/');
    expect(index.status).toBe(200);
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${server.port}`);
    expect(csp).not.toContain("script-src 'self' 'unsafe");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await raw('/assets/app.js')).headers['content-type']).toMatch(/javascript/);
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/%00',
    ]) {
      const res = await raw(path);
      expect(res.body, path).not.toContain('not for the browser');
      expect([400, 404], path).toContain(res.status);
    }
    expect((await raw('/projects')).body).toContain('<title>Benchtop</title>'); // app route
    expect((await raw('/', { method: 'POST' })).status).toBe(405);
  });

  it('accepts the event WebSocket only with the token and our origin', async () => {
    expect((await upgrade(server.port, '/api/events')).status).toBe(401);
    expect((await upgrade(server.port, '/api/events?token=nope')).status).toBe(401);
    expect(
      (
        await upgrade(server.port, `/api/events?token=${server.token}`, {
          Origin: 'http://evil.example',
        })
      ).status,
    ).toBe(403);
    const ok = await upgrade(server.port, `/api/events?token=${server.token}`, {
      Origin: server.origin,
    });
    expect(ok.status).toBe(101);
    // An event pushed by a request reaches the socket.
    await raw('/api/invoke/settings:update', {
      method: 'POST',
      headers: { ...auth(), ...json },
      body: '{"threads":2}',
    });
    await waitFor(() => ok.received.length > 0);
    const [frame] = parseServerFrames(Buffer.concat(ok.received));
    expect(JSON.parse(frame!.payload.toString())).toEqual({
      event: 'workspace:changed',
      payload: { projectId: null, what: 'settings' },
    });
    ok.socket!.write(clientFrame(0x8, Buffer.from([0x03, 0xe8])));
    await waitFor(() => ok.socket!.destroyed || ok.socket!.readableEnded);
  });

  it('answers a request target that is not a URL with 400 and stays up', async () => {
    const host = `Host: 127.0.0.1:${server.port}\r\n`;
    const ws = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n';
    const upgraded = await rawBytes(`GET http://[bad HTTP/1.1\r\n${host}${ws}\r\n`);
    expect(upgraded).toMatch(/^HTTP\/1\.1 400/);
    const plain = await rawBytes(`GET http://[bad HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
    expect(plain).toMatch(/^HTTP\/1\.1 400/);
    expect((await raw('/api/status', { headers: auth() })).status).toBe(200);
  });

  it('refuses a declared body past the limit at once, before it is sent', async () => {
    const head =
      `POST /api/invoke/projects:list HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
      `Authorization: Bearer ${server.token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${64 << 20}\r\n\r\n`;
    const started = Date.now();
    // No body follows: only the headers say how big it is.
    const reply = await rawBytes(head, /too large\."}}/);
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    expect(reply).toContain('The request is too large.');
    expect(Date.now() - started).toBeLessThan(900); // answered, not left waiting for the body
  });
});
