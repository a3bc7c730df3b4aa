// Runs the engine host in a utilityProcess, correlates requests with replies, forwards events
// to the windows, restarts the host when it dies (raising engine:crashed / engine:ready) and
// shuts it down gracefully when Benchtop quits.
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
/** After a start-up refusal, the next request tries again once this long has passed. */
export const RETRY_FATAL_MS = 2_000;
const RESTART_WINDOW_MS = 60_000;
/** How long quitting waits for the host to stop its jobs (the engine itself allows 15 s). */
export const SHUTDOWN_GRACE_MS = 20_000;
/** How often a ready host is asked whether its event loop turns. */
export const PING_EVERY_MS = 5_000;
/**
 * Silence after which windows are told the engine is not answering (engine:unresponsive). Long
 * enough for the engine's longest synchronous work (opening a large workspace's search index);
 * the host is not killed for it, since it may only be slow: the user decides (quit and reopen).
 */
export const UNRESPONSIVE_AFTER_MS = 30_000;

/** Requests wait at a closed gate while the host starts or restarts. */
interface Gate {
  promise: Promise<void>;
  isOpen: boolean;
  open(): void;
}

function closedGate(): Gate {
  const gate: Gate = { promise: Promise.resolve(), isOpen: false, open: () => {} };
  gate.promise = new Promise((resolve) => {
    gate.open = () => {
      gate.isOpen = true;
      resolve();
    };
  });
  return gate;
}

const STARTS_RUN = new Set(['train:start', 'train:resume', 'distill:start']);

/** The run a start reply or a training event is about (a throw here would be an error dialog in main). */
const runIdOf = (value: unknown): string | undefined => {
  const runId = (value as { runId?: unknown } | null | undefined)?.runId;
  return typeof runId === 'string' ? runId : undefined;
};

const unavailable = (message: string): Reply<never> => ({
  ok: false,
  error: { code: 'engine-unavailable', message },
});

export class EngineSupervisor {
  #child: UtilityProcess | null = null;
  #pending = new Map<number, { name: string; resolve: (reply: Reply<unknown>) => void }>();
  /** Training runs in progress: from their start replies and progress events until finished. */
  #runs = new Set<string>();
  #nextId = 1;
  #gate = closedGate();
  #restarts: number[] = [];
  /** Hosts in a row that exited before they were ready (a native module that does not load). */
  #startCrashes = 0;
  #restartTimer: ReturnType<typeof setTimeout> | undefined;
  #isStopping = false;
  #stopped: Promise<void> | null = null;
  #fatal: string | null = null;
  /** When the host refused to start (the workspace); null for a give-up, which is final. */
  #refusedAt: number | null = null;
  #pingTimer: ReturnType<typeof setInterval> | undefined;
  /** When the current host last showed it was alive (ready, a pong, a reply or an event). */
  #aliveAt = 0;
  #isUnresponsive = false;
  readonly #opts: SupervisorOptions;

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
  }

  start(): void {
    if (this.#isStopping) return;
    const { entry, dataDir, resourcesDir, version } = this.#opts;
    let child: UtilityProcess;
    try {
      child = utilityProcess.fork(
        entry,
        ['--data-dir', dataDir, '--resources-dir', resourcesDir, '--version', version, '--bundle-dir', import.meta.dirname],
        {
          serviceName: 'Benchtop engine',
          stdio: 'inherit',
          // Allocator settings for training (glibc only; see engine/runtime/process-env.ts).
          env: engineProcessEnv(process.env),
        },
      );
    } catch (err) {
      // NOTE: a throw here would stop app start-up before the window (or, from the restart
      // timer, raise an error dialog in main); requests get this message instead.
      const kind = err instanceof Error ? err.name : typeof err;
      this.#fatal = `The engine could not be started (${kind}); reinstall Benchtop if this keeps happening.`;
      this.#refusedAt = null; // final: no new try (and no new crash event) on every request
      this.#gate.open();
      this.#opts.broadcast('engine:crashed', { message: this.#fatal, willRestart: false });
      return;
    }
    this.#child = child;
    this.#fatal = null;
    this.#refusedAt = null;
    if (this.#gate.isOpen) this.#gate = closedGate();
    child.on('message', (m: HostMessage) => {
      if (this.#child !== child) return;
      this.#alive();
      if (m.type === 'ready') {
        this.#startCrashes = 0;
        this.#gate.open();
        this.#opts.broadcast('engine:ready', {});
        this.#watch(child);
      } else if (m.type === 'pong') {
        return;
      } else if (m.type === 'fatal') {
        // The host waits for this kill: exiting itself could have lost the message.
        this.#fatal = m.message;
        // A refused workspace may be free later; a damaged installation stays damaged.
        this.#refusedAt = m.isFinal === true ? null : Date.now();
        this.#gate.open();
        child.kill();
        if (m.isFinal === true) this.#opts.broadcast('engine:crashed', { message: m.message, willRestart: false });
      } else if (m.type === 'reply') {
        const pending = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        if (pending && STARTS_RUN.has(pending.name) && m.reply.ok) {
          const runId = runIdOf(m.reply.value);
          if (runId !== undefined) this.#runs.add(runId);
        }
        pending?.resolve(m.reply);
      } else if (m.type === 'event') {
        const runId = runIdOf(m.payload);
        if (m.name === 'train:progress' && runId !== undefined) this.#runs.add(runId);
        if (m.name === 'train:finished' && runId !== undefined) this.#runs.delete(runId);
        this.#opts.broadcast(m.name, m.payload as Events[typeof m.name]);
      }
    });
    child.on('exit', (code) => this.#onExit(child, code));
  }

  /** Sends one request; resolves with the reply envelope (never rejects). */
  async request(name: string, args: unknown): Promise<Reply<unknown>> {
    // NOTE: a loop, not one await: a host that dies before it is ready leaves the gate closed
    // for its replacement, and a host that gives up opens it with #fatal set.
    // A workspace refused at start-up (open in browser mode, say) may be free now: try again,
    // so that following the message ("close that one first") is enough.
    const refusedAt = this.#refusedAt;
    if (refusedAt !== null && this.#child === null && Date.now() - refusedAt >= RETRY_FATAL_MS)
      this.start();
    while (!this.#gate.isOpen) await this.#gate.promise;
    const child = this.#child;
    if (this.#fatal !== null) return unavailable(this.#fatal);
    if (this.#isStopping || child === null)
      return unavailable('Benchtop is quitting; the request was not sent.');
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, { name, resolve });
      const message: MainMessage = { type: 'request', id, name, args };
      try {
        child.postMessage(message);
      } catch (err) {
        // Arguments the host's channel cannot carry: answered, not left waiting forever.
        this.#pending.delete(id);
        const kind = err instanceof Error ? err.name : typeof err;
        resolve({
          ok: false,
          error: { code: 'internal', message: `Benchtop could not send this request to the engine (${kind}); try again, and report it if it keeps happening.` },
        });
      }
    });
  }

  /** How many training runs are in progress (quitting stops them at a step boundary). */
  get runningTrainingCount(): number {
    return this.#runs.size;
  }

  /**
   * Asks the host to stop its jobs at a step boundary (training keeps its checkpoint) and to
   * close the workspace, then waits for it to exit; kills it after SHUTDOWN_GRACE_MS. Works the
   * same on every OS (a message, not a signal: Windows has no SIGTERM).
   */
  shutdown(): Promise<void> {
    if (this.#stopped) return this.#stopped;
    this.#isStopping = true;
    clearTimeout(this.#restartTimer);
    clearInterval(this.#pingTimer);
    this.#gate.open();
    const child = this.#child;
    if (child === null) return (this.#stopped = Promise.resolve());
    this.#stopped = new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill(), SHUTDOWN_GRACE_MS);
      // 'exit' follows kill(); the second timer only guards against a host that never reports.
      const giveUp = setTimeout(resolve, SHUTDOWN_GRACE_MS + 5_000);
      child.once('exit', () => {
        clearTimeout(kill);
        clearTimeout(giveUp);
        resolve();
      });
    });
    const message: MainMessage = { type: 'shutdown' };
    child.postMessage(message);
    return this.#stopped;
  }

  /** Pings a ready host and tells the windows when it stops answering, and when it answers again. */
  #watch(child: UtilityProcess): void {
    clearInterval(this.#pingTimer);
    this.#pingTimer = setInterval(() => {
      if (this.#child !== child || this.#isStopping) return void clearInterval(this.#pingTimer);
      const silent = Date.now() - this.#aliveAt;
      if (silent >= UNRESPONSIVE_AFTER_MS && !this.#isUnresponsive) {
        this.#isUnresponsive = true;
        this.#opts.broadcast('engine:unresponsive', { seconds: Math.round(silent / 1000) });
      }
      const ping: MainMessage = { type: 'ping' };
      try {
        child.postMessage(ping);
      } catch {
        // A host going away: its 'exit' follows.
      }
    }, PING_EVERY_MS);
  }

  #alive(): void {
    this.#aliveAt = Date.now();
    if (!this.#isUnresponsive) return;
    this.#isUnresponsive = false;
    this.#opts.broadcast('engine:ready', {});
  }

  #onExit(child: UtilityProcess, code: number): void {
    if (this.#child !== child) return;
    this.#child = null;
    clearInterval(this.#pingTimer);
    this.#isUnresponsive = false;
    const lost = [...this.#pending.values()].map((p) => p.resolve);
    this.#pending.clear();
    this.#runs.clear();
    const message = `The engine stopped (exit code ${code}) while handling a request; that request was not completed.`;
    for (const resolve of lost) resolve(unavailable(message));
    if (this.#isStopping || this.#fatal !== null) {
      this.#gate.open();
      return;
    }
    const now = Date.now();
    this.#restarts = this.#restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    if (!this.#gate.isOpen) this.#startCrashes++;
    if (this.#restarts.length >= MAX_RESTARTS) {
      // NOTE: hosts that never got ready most likely could not load their code (a damaged
      // installation: onnxruntime's library missing or quarantined by an antivirus), which
      // blaming the workspace would send the user the wrong way.
      this.#fatal =
        this.#startCrashes > MAX_RESTARTS
          ? `The engine stopped ${MAX_RESTARTS + 1} times while starting (exit code ${code}), so Benchtop no longer restarts it. The installation may be damaged: reinstall Benchtop (the workspace is kept). If that does not help, the workspace may be damaged.`
          : `The engine stopped ${MAX_RESTARTS + 1} times within a minute, so Benchtop no longer restarts it. Quit Benchtop and start it again; if it keeps happening, the workspace may be damaged.`;
      this.#gate.open();
      this.#opts.broadcast('engine:crashed', { message: this.#fatal, willRestart: false });
      return;
    }
    this.#opts.broadcast('engine:crashed', { message: `exit code ${code}`, willRestart: true });
    // Requests wait for the restarted host instead of failing during the pause.
    if (this.#gate.isOpen) this.#gate = closedGate();
    this.#restarts.push(now);
    this.#restartTimer = setTimeout(() => this.start(), 500 * this.#restarts.length);
  }
}
