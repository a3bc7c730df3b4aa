#!/usr/bin/env node
// Entry point of the `benchtop` CLI: loads the TypeScript engine through tsx and runs it.
// On Linux it first restarts itself once with the engine's allocator settings (glibc reads them
// only at process start; see engine/runtime/process-env.ts), forwarding signals and the exit code.
import { spawn } from 'node:child_process';
import { register } from 'tsx/esm/api';

register();
const { engineProcessEnv, hasEngineProcessEnv } = await import('../engine/runtime/process-env.ts');
if (process.platform === 'linux' && !hasEngineProcessEnv()) {
  // The IPC channel only tells the child when this launcher dies (even of SIGKILL): it then stops
  // as on Ctrl-C (a run keeps its checkpoint) instead of running on unseen as an orphan.
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], env: engineProcessEnv() });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, as the shell expects.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
} else {
  if (process.channel) {
    process.once('disconnect', () => process.kill(process.pid, 'SIGINT'));
    process.channel.unref();
  }
  // Output piped into a reader that stops early (`benchtop … | head`) is not an error; another
  // failed write (stdout redirected to a full disk) is one line and exit 1, not a stack trace.
  const { stdoutError } = await import('../engine/cli/stdout-error.ts');
  process.stdout.on('error', (e) => {
    const { code, line } = stdoutError(e);
    if (line !== undefined) process.stderr.write(`${line}\n`);
    process.exit(code);
  });
  // Progress and warnings go to standard error: when it cannot be written (redirected to a full
  // disk), they are lost, but the run goes on (it used to stop with exit 1 and nothing saved).
  process.stderr.on('error', () => {});
  // A crash of this process must not leave its memory (the notes it read) in a core dump.
  const { disableCoreDumps } = await import('../engine/runtime/core-dumps.ts');
  const coreDumps = disableCoreDumps();
  if (coreDumps) console.error(`benchtop: warning: core dumps of this process stay allowed: ${coreDumps}`);
  const { main } = await import('../engine/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
