// Browser mode against a buggy or hostile client: bodies in the wrong encoding, a port that is
// taken, and what a refused start leaves behind.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './server.ts';

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
  it('answers a request sent with GET by naming POST, not as an unknown path', async () => {
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
    const unknown = await fetch(`http://127.0.0.1:${server.port}/api/nothing`, {
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(unknown.status).toBe(404);
  });
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
