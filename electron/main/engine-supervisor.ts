// Runs the engine host in a utilityProcess, correlates requests with replies, forwards events
// to the windows, and restarts the host when it dies (raising engine:crashed / engine:ready).
import { type UtilityProcess, utilityProcess } from 'electron';
import { engineProcessEnv } from '../../engine/runtime/process-env.ts';
import type { EventName, Events, Reply } from '../../engine/api/contract.ts';
import type { HostMessage, MainMessage } from '../engine-host/messages.ts';

export interface SupervisorOptions {
  /** Bundled engine-host entry (electron-vite `?modulePath`). */
  entry: string;
  dataDir: string;
  resourcesDir: string;
  version: string;
  broadcast: <K extends EventName>(name: K, payload: Events[K]) => void;
}

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

export class EngineSupervisor {
  #child: UtilityProcess | null = null;
  #pending = new Map<number, (reply: Reply<unknown>) => void>();
  #nextId = 1;
  #ready: Promise<void> = Promise.resolve();
  #restarts: number[] = [];
  #isStopping = false;
  #fatal: string | null = null;
  readonly #opts: SupervisorOptions;

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
  }

  start(): void {
    const { entry, dataDir, resourcesDir, version } = this.#opts;
    const child = utilityProcess.fork(
      entry,
      ['--data-dir', dataDir, '--resources-dir', resourcesDir, '--version', version, '--bundle-dir', import.meta.dirname],
      {
        serviceName: 'Benchtop engine',
        stdio: 'inherit',
        // Allocator settings for training (glibc only; see engine/runtime/process-env.ts).
        env: engineProcessEnv(process.env),
      },
    );
    this.#child = child;
    this.#fatal = null;
    let markReady: () => void = () => {};
    this.#ready = new Promise((resolve) => (markReady = resolve));
    child.on('message', (m: HostMessage) => {
      if (m.type === 'ready') {
        markReady();
        this.#opts.broadcast('engine:ready', {});
      } else if (m.type === 'fatal') {
        this.#fatal = m.message;
        markReady();
      } else if (m.type === 'reply') {
        this.#pending.get(m.id)?.(m.reply);
        this.#pending.delete(m.id);
      } else if (m.type === 'event') {
        this.#opts.broadcast(m.name, m.payload as Events[typeof m.name]);
      }
    });
    child.on('exit', (code) => this.#onExit(child, code));
  }

  /** Sends one request; resolves with the reply envelope (never rejects). */
  async request(name: string, args: unknown): Promise<Reply<unknown>> {
    await this.#ready;
    const child = this.#child;
    if (child === null || this.#fatal !== null) {
      return {
        ok: false,
        error: {
          code: 'engine-unavailable',
          message: this.#fatal ?? 'The engine is not running; restart Benchtop.',
        },
      };
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      const message: MainMessage = { type: 'request', id, name, args };
      child.postMessage(message);
    });
  }

  stop(): void {
    this.#isStopping = true;
    this.#child?.kill();
    this.#child = null;
  }

  #onExit(child: UtilityProcess, code: number): void {
    if (this.#child !== child) return;
    this.#child = null;
    const lost = [...this.#pending.values()];
    this.#pending.clear();
    const message = `The engine stopped (exit code ${code}) while handling a request; that request was not completed.`;
    for (const resolve of lost)
      resolve({ ok: false, error: { code: 'engine-unavailable', message } });
    if (this.#isStopping || this.#fatal !== null) return;
    const now = Date.now();
    this.#restarts = this.#restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    this.#opts.broadcast('engine:crashed', { message: `exit code ${code}` });
    if (this.#restarts.length >= MAX_RESTARTS) {
      this.#fatal =
        'The engine keeps stopping; restart Benchtop. If it happens again, the workspace may be damaged.';
      return;
    }
    this.#restarts.push(now);
    setTimeout(() => this.start(), 500 * this.#restarts.length);
  }
}
