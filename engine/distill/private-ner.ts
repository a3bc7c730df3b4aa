// The private labelled NER documents a distillation mixes in (--private-data, or the workbench's
// documents) are encoded before the teacher runs: thousands of notes take seconds. They are
// encoded a slice at a time with a look at the cancel flag between slices (mapCancellable, as
// the private RE pairs are), so Cancel and Ctrl-C (whose handler waits for the event loop) stop
// the run before the teacher labels anything.
import type { Document } from '../formats/types.ts';
import { mapCancellable, unlessCancelled, type Encoded } from '../tasks/batching.ts';
import type { TaskContext } from '../tasks/events.ts';
import { encodeNerTraining, type NerModelView } from '../tasks/ner-task.ts';

/** Characters of documents encoded between two looks at the cancel flag (a few milliseconds). */
export const SLICE_CHARS = 20_000;

/** `docs` cut into runs of at most SLICE_CHARS characters (at least one document each). */
function slices(docs: readonly Document[]): Document[][] {
  const out: Document[][] = [];
  for (let from = 0; from < docs.length; ) {
    let to = from + 1;
    for (let chars = docs[from]?.text.length ?? 0; to < docs.length && chars + (docs[to]?.text.length ?? 0) <= SLICE_CHARS; to++)
      chars += docs[to]?.text.length ?? 0;
    out.push(docs.slice(from, to));
    from = to;
  }
  return out;
}

/**
 * The training inputs of private NER documents (as encodeNerTraining gives them with no dev
 * part), or undefined when `ctx` is cancelled while they are encoded. A sentence never spans
 * two documents, so slices encode as the whole does.
 */
export async function encodePrivateNer(
  docs: readonly Document[],
  view: NerModelView,
  opts: { seed: number; batchSize: number; source: string },
  ctx: TaskContext,
): Promise<Encoded[] | undefined> {
  const parts = await unlessCancelled(mapCancellable(slices(docs), (part) => encodeNerTraining(part, [], view, opts).train, () => ctx.isCancelled()));
  return parts?.flat();
}
