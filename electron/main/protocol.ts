// The app:// protocol: serves the built renderer from out/renderer with path-traversal checks
// and the Content-Security-Policy header (Actual's app:// handler idea).
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { protocol } from 'electron';

export const APP_ORIGIN = 'app://benchtop';

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Must run before app 'ready'. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The file for a URL path inside `root`, or null when it escapes or does not exist. */
export async function resolveAppPath(root: string, pathname: string): Promise<string | null> {
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (rel.includes('\0') || rel.includes('\\') || rel.split('/').includes('..')) return null;
  const base = resolve(root);
  const full = resolve(join(base, rel === '/' ? 'index.html' : rel));
  if (!full.startsWith(base + sep)) return null;
  try {
    const real = await realpath(full);
    return real.startsWith((await realpath(base)) + sep) ? real : null;
  } catch {
    return null;
  }
}

/** Serves `rendererDir` at app://benchtop/. */
export function handleAppProtocol(rendererDir: string): void {
  protocol.handle('app', async (request) => {
    const url = new URL(request.url);
    const file = url.host === 'benchtop' ? await resolveAppPath(rendererDir, url.pathname) : null;
    if (file === null) return new Response('Not found', { status: 404 });
    return new Response(await readFile(file), {
      headers: {
        'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
      },
    });
  });
}
