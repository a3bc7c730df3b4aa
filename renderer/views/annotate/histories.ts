// Undo histories kept while the user moves between documents (‹ ›, the list): coming back to a
// document finds its undo steps again, provided nothing changed it meanwhile (same revision).
import { History } from '../../lib/annotate/history.ts';

interface Kept {
  history: History;
  /** The revision the steps apply to, read when the history is taken back (after the last save). */
  revision: () => number | undefined;
}

const KEEP = 20;
const kept = new Map<number, Kept>();

/** Keeps a document's history when its editor closes. */
export function keepHistory(documentId: number, history: History, revision: () => number | undefined): void {
  kept.delete(documentId);
  kept.set(documentId, { history, revision });
  for (const id of kept.keys()) {
    if (kept.size <= KEEP) break;
    kept.delete(id);
  }
}

/** The kept history of a document opened at `revision`, or a new one if it changed since. */
export function takeHistory(documentId: number, revision: number): History {
  const k = kept.get(documentId);
  kept.delete(documentId);
  return k !== undefined && k.revision() === revision ? k.history : new History();
}
