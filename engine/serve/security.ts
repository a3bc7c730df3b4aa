// Browser-mode request checks: the per-launch token (header or query), the Host header (no DNS
// rebinding) and the Origin (only the page we served), plus the response security headers.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The token presented by a request: `Authorization: Bearer …` or `?token=…`. The scheme's name
 * is matched in any case, as RFC 7235 has it ("bearer" was refused); the token is not.
 */
export function presentedToken(req: IncomingMessage, url: URL): string | null {
  const auth = req.headers.authorization;
  const bearer = typeof auth === 'string' ? /^bearer +(.*)$/is.exec(auth) : null;
  if (bearer) return (bearer[1] as string).trim();
  return url.searchParams.get('token');
}

/** Constant-time comparison of the presented token with the launch token. */
export function isTokenValid(presented: string | null, token: string): boolean {
  if (presented === null) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `name:port` for each loopback name, and the bare names on port 80, which browsers leave out. */
function loopbackAuthorities(port: number): string[] {
  const names = ['127.0.0.1', 'localhost'];
  return [...names.map((n) => `${n}:${port}`), ...(port === 80 ? names : [])];
}

/** Hosts the server answers to (loopback names with our port only). */
export function allowedHosts(port: number): Set<string> {
  return new Set(loopbackAuthorities(port));
}

/** Origins the API accepts: the page we served, under either loopback name. */
export function allowedOrigins(port: number): Set<string> {
  return new Set(loopbackAuthorities(port).map((a) => `http://${a}`));
}

/** True when the Host header names us (guards against DNS rebinding). */
export function isHostAllowed(req: IncomingMessage, port: number): boolean {
  return (
    typeof req.headers.host === 'string' && allowedHosts(port).has(req.headers.host.toLowerCase())
  );
}

/** True when there is no Origin (non-browser client) or it is our own. */
export function isOriginAllowed(req: IncomingMessage, port: number): boolean {
  const origin = req.headers.origin;
  return origin === undefined || allowedOrigins(port).has(origin);
}

/** The Content-Security-Policy for pages: nothing but ourselves, WebSocket to our port only. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // Svelte sets dynamic colours and virtual-list offsets through style attributes.
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers on every response. */
export function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(port),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}
