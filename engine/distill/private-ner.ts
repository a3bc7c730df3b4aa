// The private labelled NER documents a distillation mixes in (--private-data, or the workbench's
// documents) are encoded before the teacher runs: thousands of notes take seconds. They are
// encoded a slice at a time with a look at the cancel flag between slices, as the private RE
// pairs are (engine/tasks/re-task.ts encodeCancellable), so Cancel and Ctrl-C (whose handler
// waits for the event loop) stop the run before the teacher labels anything.
import type { Document } from '../formats/types.ts';
import type { Encoded } from '../tasks/batching.ts';
import type { TaskContext } from '../tasks/events.ts';
import { encodeNerTraining, type NerModelView } from '../tasks/ner-task.ts';

/** Characters of documents encoded between two looks at the cancel flag (a few milliseconds). */
export const SLICE_CHARS = 20_000;
/** How long encoding runs between two turns of the event loop. */
const YIELD_MS = 50;

/**
 * The training inputs of private NER documents (as encodeNerTraining gives them with no dev
 * part), or undefined when `ctx` is cancelled while they are encoded.
 */
export async function encodePrivateNer(
  docs: readonly Document[],
  view: NerModelView,
  opts: { seed: number; batchSize: number; source: string },
  ctx: TaskContext,
): Promise<Encoded[] | undefined> {
  const out: Encoded[] = [];
  let free = performance.now();
  for (let from = 0; from < docs.length; ) {
    if (ctx.isCancelled()) return undefined;
    // At least one document; a sentence never spans two, so slices encode as the whole does.
    let to = from + 1;
    for (let chars = docs[from]?.text.length ?? 0; to < docs.length && chars + (docs[to]?.text.length ?? 0) <= SLICE_CHARS; to++)
      chars += docs[to]?.text.length ?? 0;
    for (const e of encodeNerTraining(docs.slice(from, to), [], view, opts).train) out.push(e);
    from = to;
    if (performance.now() - free > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      free = performance.now();
    }
  }
  return out;
}
