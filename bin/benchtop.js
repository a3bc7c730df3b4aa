#!/usr/bin/env node
// Entry point of the `benchtop` CLI: loads the TypeScript engine through tsx and runs it.
// On Linux it first restarts itself once with the engine's allocator settings (glibc reads them
// only at process start; see engine/runtime/process-env.ts), forwarding signals and the exit code.
import { spawn } from 'node:child_process';
import { register } from 'tsx/esm/api';

register();
const { engineProcessEnv, hasEngineProcessEnv } = await import('../engine/runtime/process-env.ts');
if (process.platform === 'linux' && !hasEngineProcessEnv()) {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: engineProcessEnv() });
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
  const { main } = await import('../engine/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
