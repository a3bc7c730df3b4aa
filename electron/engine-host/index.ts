// utilityProcess entry: opens the engine on the data folder given by main and answers
// {type:'request'} messages through engine/api/handlers.ts, forwarding engine events. No UI
// logic; validation happens in the handlers.
import { join } from 'node:path';
import type * as EngineApi from '../../engine/api/handlers.ts';
import { disableCoreDumps } from '../../engine/runtime/core-dumps.ts';
import type { HostMessage, MainMessage } from './messages.ts';
import { nativeModuleFailure } from './native-modules.ts';

// First: no kernel core dump of the process that holds the documents, worker threads included.
const coreDumpsProblem = disableCoreDumps();
if (coreDumpsProblem !== null) console.warn(`Benchtop engine: core dumps are left as the system sets them: ${coreDumpsProblem}`);

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const port = process.parentPort;
const post = (m: HostMessage): void => port.postMessage(m);
const dataDir = argValue('--data-dir');
const resourcesDir = argValue('--resources-dir');
const version = argValue('--version');
// Worker threads load these bundled entries by path (see electron.vite.config.ts); main passes
// the folder of its own bundle, where electron-vite writes them.
const bundleDir = argValue('--bundle-dir');
if (bundleDir !== undefined) {
  process.env['BENCHTOP_WORKER_BOOT'] ??= join(bundleDir, 'worker-boot.js');
  process.env['BENCHTOP_TASK_WORKER'] ??= join(bundleDir, 'task-worker.js');
  process.env['BENCHTOP_DOCX_READER'] ??= join(bundleDir, 'docx-reader.js');
}

/**
 * Reports why the engine cannot start; main stops this process once the message is in.
 * `isFinal`: the installation, not the workspace, is at fault, so main does not try again.
 */
function fail(message: string, code: number, isFinal = false): void {
  post({ type: 'fatal', message, ...(isFinal && { isFinal }) });
  // NOTE: exiting at once could drop the message (main would see a plain crash, retry, and
  // give up with a vaguer one); this timer only ends a host whose main is gone.
  setTimeout(() => process.exit(code), 10_000);
}

function serve(engine: EngineApi.Engine): void {
  engine.subscribe((name, payload) => post({ type: 'event', name, payload }));

  let closing: Promise<void> | null = null;
  /** Stops jobs at a step boundary (training keeps its checkpoint), closes, then exits. */
  const closeAndExit = (): void => {
    closing ??= engine.close().finally(() => process.exit(0));
  };

  port.on('message', (e: { data: MainMessage }) => {
    const m = e.data;
    if (m.type === 'shutdown') return closeAndExit();
    if (m.type === 'ping') return post({ type: 'pong' });
    if (m.type !== 'request') return;
    void engine.invoke(m.name, m.args).then((reply) => {
      try {
        post({ type: 'reply', id: m.id, reply });
      } catch {
        // A value that cannot be cloned must not take the engine down (an unhandled rejection
        // would end this process): answer with an error instead.
        post({
          type: 'reply',
          id: m.id,
          reply: {
            ok: false,
            error: { code: 'internal', message: `Benchtop could not send the answer to ${m.name}; try again, and report it if it keeps happening.` },
          },
        });
      }
    });
  });

  // NOTE: close() asks running jobs to checkpoint; at 'exit' only its synchronous part (closing
  // the database) can still run. Main sends 'shutdown' when quitting (Windows has no SIGTERM).
  process.on('exit', () => void engine.close());
  process.once('SIGTERM', closeAndExit);
  post({ type: 'ready' });
}

/**
 * The engine's code and its model runtime, loaded here rather than imported above:
 * onnxruntime-node loads its native library when imported, and a failure there is reported like any other native one (a static
 * import would end this process before it could say why).
 */
async function loadEngine(): Promise<typeof EngineApi | null> {
  try {
    // The model runtime first: the handlers load it only in the workers a job starts, and a
    // damaged installation is said now, before the workspace opens, not at the first run.
    await import('../../engine/runtime/session.ts');
    return await import('../../engine/api/handlers.ts');
  } catch (err) {
    // NOTE: Node's loader also rejects a promise of its own with the error of a CommonJS module
    // that failed in the imported graph (onnxruntime-node's binding), which nothing handles: that
    // would end this process before main has the message (see fail()).
    process.on('unhandledRejection', (reason) => {
      if (reason !== err) throw reason;
    });
    const kind = err instanceof Error ? err.name : typeof err;
    fail(nativeModuleFailure(err) ?? `The engine's code could not be loaded (${kind}): this installation is damaged. Reinstall Benchtop; the workspace was not opened and is kept as it is.`, 4, true);
    return null;
  }
}

if (dataDir === undefined) {
  fail('The engine was started without a data folder.', 2);
} else {
  const handlers = await loadEngine();
  let engine: EngineApi.Engine | undefined;
  try {
    engine = handlers?.createEngine({
      dataDir,
      ...(resourcesDir !== undefined && { resourcesDir }),
      ...(version !== undefined && { version }),
    });
  } catch (err) {
    // A native module that does not load surfaces here, wrapped by the store as a folder error.
    const native = nativeModuleFailure(err);
    // Store errors (corrupt or newer workspace, open in another Benchtop) carry a message
    // meant for the user.
    if (native !== null) fail(native, 4, true);
    else fail(err instanceof Error ? err.message : 'The workspace could not be opened.', 3);
  }
  if (engine) serve(engine);
}
