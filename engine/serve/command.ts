// `benchtop serve` and `benchtop start`: browser mode prints one line with the address (token
// included) and runs until Ctrl+C; start prefers the Electron app and falls back to browser
// mode when the Electron binary is not installed. The lead registers these in engine/cli/main.ts.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../cli/args.ts';
import { runDesktopApp } from '../cli/desktop-app.ts';
import { defaultDataDir, resolveUserPath } from './data-dir.ts';
import { hostProblem, startServer } from './server.ts';

export interface ServeOptions {
  port?: string | number;
  host?: string;
  dataDir?: string;
}

export function parsePort(value: string | number | undefined): number {
  if (value === undefined) return 0;
  // Digits only: Number() read "0x50" as port 80 and "" or " " as 0.
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--port must be 0-65535 (0 picks a free port), got "${String(value)}"`);
  return n;
}

/** The workspace folder --data-dir names (absolute), or the default one. */
export function resolveDataDir(dataDir: string | undefined): string {
  // resolve('') is the current folder: an empty --data-dir (an unset variable) made it the workspace.
  if (dataDir?.trim() === '') throw new UsageError('--data-dir is empty; give the folder that holds (or will hold) the Benchtop workspace, or leave it out');
  return dataDir === undefined ? defaultDataDir() : resolveUserPath(dataDir);
}

/** Runs browser mode until SIGINT, SIGTERM or SIGHUP; resolves with the exit code. */
export async function cmdServe(opts: ServeOptions = {}): Promise<number> {
  // A usage mistake (exit 2), told before the workspace is opened; startServer refuses it too.
  const refused = opts.host === undefined ? undefined : hostProblem(opts.host);
  if (refused !== undefined) throw new UsageError(refused);
  const server = await startServer({
    dataDir: resolveDataDir(opts.dataDir),
    port: parsePort(opts.port),
    ...(opts.host !== undefined && { host: opts.host }),
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  return new Promise((done) => {
    let isStopping = false;
    // NOTE: a terminal's Ctrl-C (or its window closing: SIGHUP) reaches this process twice, from
    // the terminal and forwarded by the launcher (bin/benchtop.js). With a listener for the first
    // only, the second killed it mid-close: no run checkpointed, the workspace left unreleased.
    // The listeners stay until the process ends: a copy arriving just after the close did too.
    const stop = (): void => {
      if (isStopping) return;
      isStopping = true;
      void server.close().then(() => done(0));
    };
    for (const s of signals) process.on(s, stop);
    // Only now: a Ctrl-C as soon as the address appears must find the listeners in place.
    console.log(`Benchtop is running at ${server.url}`);
  });
}

/** The Electron executable when its binary is installed, else null. */
export function electronBinary(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('electron/package.json');
    const pathFile = join(dirname(pkg), 'path.txt');
    if (!existsSync(pathFile)) return null;
    const exe = join(dirname(pkg), 'dist', readFileSync(pathFile, 'utf8').trim());
    return existsSync(exe) ? exe : null;
  } catch {
    return null;
  }
}

/** `npm start`: the desktop app when possible, else browser mode (printing why). */
export async function cmdStart(opts: ServeOptions = {}): Promise<number> {
  const exe = electronBinary();
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const mainJs = join(root, 'out', 'main', 'index.js');
  if (exe !== null && existsSync(mainJs)) {
    // --data-dir reaches the app as the BENCHTOP_DATA_DIR it reads: it was dropped, and the app
    // opened the default workspace. Stop signals are passed on; the app's exit status is ours.
    const env = opts.dataDir === undefined ? process.env : { ...process.env, BENCHTOP_DATA_DIR: resolveDataDir(opts.dataDir) };
    return runDesktopApp(exe, [root], env);
  }
  console.log(
    exe === null
      ? 'The Electron binary is not installed on this machine; starting Benchtop in browser mode instead.'
      : 'The desktop app is not built (run "npm run build"); starting Benchtop in browser mode instead.',
  );
  return cmdServe(opts);
}
