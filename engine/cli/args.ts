// Small helpers over node:util parseArgs for the benchtop CLI: typed option access with
// clear usage errors. No third-party parser: the built-in one covers what the CLI needs.

export class UsageError extends Error {}

export type Opts = Record<string, string | boolean | undefined>;

export function requireString(opts: Opts, name: string): string {
  const v = opts[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`missing required option --${name}`);
  return v;
}

export function optionalNumber(opts: Opts, name: string, fallback: number): number {
  const v = opts[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${String(v)}"`);
  return n;
}

export function optionalString(opts: Opts, name: string): string | undefined {
  const v = opts[name];
  return typeof v === 'string' ? v : undefined;
}
