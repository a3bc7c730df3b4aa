// Serves the built renderer: GET/HEAD only, percent-decoded paths resolved strictly inside the
// root (no '..', no NUL, no symlinks out, no name Windows reads as something else), unknown
// routes fall back to index.html.
import { realpath, readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

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

export interface StaticFile {
  status: number;
  type: string;
  body: Buffer;
}

const NOT_BUILT = Buffer.from(
  '<!doctype html><meta charset="utf-8"><title>Benchtop</title><p>The Benchtop interface has not been built yet. ' +
    'Run <code>npm run build:web</code>, then reload this page.</p>',
);

// Names Windows does not read as plain files: devices (CON, NUL, COM1, LPT1… with any extension),
// alternate data streams ('index.html::$DATA'), and trailing dots or spaces it strips. The built
// renderer has none, so a request for one is refused on every platform.
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|(com|lpt)[0-9¹²³])(\..*)?$/i;

function windowsAmbiguous(segment: string): boolean {
  return segment.includes(':') || /[. ]$/.test(segment) || WINDOWS_DEVICE.test(segment.trimEnd());
}

/** Resolves a URL path to a file inside `root`, or null when it escapes or is malformed. */
export async function resolveInside(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((s) => s === '..' || (s !== '' && s !== '.' && windowsAmbiguous(s))))
    return null;
  const base = resolve(root);
  const full = resolve(join(base, decoded));
  if (full !== base && !full.startsWith(base + sep)) return null;
  try {
    const real = await realpath(full);
    const realBase = await realpath(base);
    if (real !== realBase && !real.startsWith(realBase + sep)) return null;
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** The bytes of a resolved file, or null when it went away or cannot be read since it was resolved. */
async function readResolved(file: string | null): Promise<Buffer | null> {
  // NOTE: a rebuild (`npm run build:web`) replaces the folder while Benchtop serves it; a read
  // that failed then was answered 500 with a JSON error body, as the desktop app answers 404.
  return file === null ? null : readFile(file).catch(() => null);
}

/** The response for a static path: the file, index.html for app routes, or 404/400. */
export async function serveStatic(root: string, urlPath: string): Promise<StaticFile> {
  const file = await resolveInside(root, urlPath === '/' ? '/index.html' : urlPath);
  const body = await readResolved(file);
  if (file !== null && body !== null)
    return { status: 200, type: TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream', body };
  const looksLikeRoute =
    extname(urlPath) === '' && !urlPath.includes('..') && !urlPath.includes('%');
  if (looksLikeRoute) {
    const index = await readResolved(await resolveInside(root, '/index.html'));
    if (index !== null) return { status: 200, type: TYPES['.html']!, body: index };
    if (urlPath === '/' || urlPath === '/index.html')
      return { status: 200, type: TYPES['.html']!, body: NOT_BUILT };
  }
  return { status: 404, type: 'text/plain; charset=utf-8', body: Buffer.from('Not found\n') };
}
