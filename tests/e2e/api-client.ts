// Calls the running server's API from the test process (Node fetch with the launch token).
import type { Args, EngineRequestName, Reply, Result } from '../../engine/api/contract.ts';
import type { RunningServer } from '../../engine/serve/server.ts';

export async function apiCall<K extends EngineRequestName>(
  server: RunningServer,
  name: K,
  args: Args<K>,
): Promise<Result<K>> {
  const res = await fetch(`${server.origin}/api/invoke/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
  });
  const reply = (await res.json()) as Reply<Result<K>>;
  if (!reply.ok) throw new Error(`${name}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}
