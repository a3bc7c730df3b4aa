// The app:// protocol: serves the built renderer from out/renderer with path-traversal checks
// and the Content-Security-Policy header (Actual's app:// handler idea).
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { protocol } from 'electron';
import { resolveInside } from '../../engine/serve/static.ts';

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

// The same types as browser mode (engine/serve/static.ts).
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The Content-Type for a served file (unknown types are not sniffed: nosniff). */
export function contentType(file: string): string {
  return TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Must run before app 'ready'. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/**
 * The file for a URL path inside `root`, or null when it escapes, is a folder or does not exist.
 * The same rules as browser mode (engine/serve/static.ts): no '..' however encoded, no backslash,
 * NUL or colon (a drive or an NTFS stream, `index.html::$DATA`), no link out of the folder, and
 * no name Windows reads as something else (a device such as `CON` or `nul.txt`, a trailing dot
 * or space), which this copy of the rules used to let through.
 */
export async function resolveAppPath(root: string, pathname: string): Promise<string | null> {
  return resolveInside(root, pathname === '/' || pathname === '' ? '/index.html' : pathname);
}

/** On every response, errors included: nothing from app:// is sniffed or runs outside the CSP. */
const SECURITY_HEADERS = { 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' };

const refusal = (status: 404 | 405, text: string, extra: Record<string, string> = {}): Response =>
  new Response(text, {
    status,
    headers: { 'Content-Type': TYPES['.txt']!, ...SECURITY_HEADERS, ...extra },
  });
const notFound = (): Response => refusal(404, 'Not found');

/** The response for one app:// request: the file, or 404 (never a rejected promise). */
export async function appResponse(rendererDir: string, request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return refusal(405, 'Method not allowed', { Allow: 'GET, HEAD' });
  const url = new URL(request.url);
  // Chromium lower-cases the host of a standard scheme; a port or another host is not the app.
  const isApp = url.hostname.toLowerCase() === 'benchtop' && url.port === '';
  const file = isApp ? await resolveAppPath(rendererDir, url.pathname) : null;
  if (file === null) return notFound();
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    return notFound(); // removed or unreadable since it was resolved (a rebuild under way)
  }
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    headers: { 'Content-Type': contentType(file), ...SECURITY_HEADERS },
  });
}

/** Serves `rendererDir` at app://benchtop/. */
export function handleAppProtocol(rendererDir: string): void {
  protocol.handle('app', (request) => appResponse(rendererDir, request));
}
