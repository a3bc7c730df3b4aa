// Test-only: an engine request as a plain async call that gives its value or throws
// "<code>: <message>" (the shape the API tests assert on). Not used by the product.
import type { Args, EngineRequestName, Reply, Result } from './contract.ts';
import type { Engine } from './handlers.ts';

export async function invoke<K extends EngineRequestName>(engine: Engine, name: K, args: Args<K>): Promise<Result<K>> {
  const reply = (await engine.invoke(name, args)) as Reply<Result<K>>;
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}
