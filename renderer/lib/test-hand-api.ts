// Renderer unit tests' fake engine, answered by hand: each request waits in the test's `calls`
// until the test resolves or rejects it, and refusals are errors with a code, as lib/api.ts's.
// Used inside a vi.mock('…/lib/api.ts') factory.

export class FakeApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A request waiting for the test's answer: [name, args, resolve, reject]. */
export type HandCall = [string, Record<string, unknown>, (v: unknown) => void, (e: unknown) => void];

/** A `call` that queues each request in `calls` for the test to answer. */
export function handAnsweredCall(calls: HandCall[]): (name: string, args: Record<string, unknown>) => Promise<unknown> {
  return (name, args) => new Promise((resolve, reject) => calls.push([name, args, resolve, reject]));
}
