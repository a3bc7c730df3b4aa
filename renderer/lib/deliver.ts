// Hands one engine event to each of its listeners. One listener that throws (a screen's state
// update failing) must not keep the event from the others, such as the engine-crash banner or a
// run's progress, so each runs on its own and a failure is logged (names only: the payload can
// hold document text).

export type AnyListener = (payload: unknown) => void;

export function deliverEvent(event: string, listeners: Iterable<AnyListener>, payload: unknown): void {
  for (const listener of listeners) {
    try {
      listener(payload);
    } catch (err) {
      console.error(`[benchtop] a ${event} listener failed:`, err instanceof Error ? err.name : typeof err);
    }
  }
}
