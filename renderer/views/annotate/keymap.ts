// The annotation editor's keyboard map: one function from a key press to an editor action.
// Kept apart from the state class so the bindings read as one table.
import type { AnnotationEditor } from './editor.svelte.ts';

export interface KeyInput {
  key: string;
  ctrl?: boolean;
  shift?: boolean;
  alt?: boolean;
}

function run(fn: () => void): true {
  fn();
  return true;
}

const WORD = /[\p{L}\p{N}]/u;

/**
 * Selects the word after (dir 1) or before (-1) the selection, the selected entity or the caret:
 * with the keyboard alone, any word can be reached, then grown with Shift and labelled.
 * Punctuation ("." "," "-") is stepped over: alone it is never a mention (Shift takes it in).
 */
function selectWord(ed: AnnotationEditor, dir: -1 | 1): void {
  const e = ed.entity(ed.selectedKey);
  const from = ed.pending ?? (e ? { start: e.spans[0]!.start, end: e.spans.at(-1)!.end } : null);
  const t = ed.tokens;
  let i =
    dir > 0 ? t.firstEndingAfter(from?.end ?? ed.caret) : t.lastStartingBefore(from?.start ?? ed.caret);
  while (i >= 0 && i < t.count && !WORD.test(ed.text.slice(t.starts[i], t.ends[i]))) i += dir;
  if (i >= 0 && i < t.count) ed.selectRange(t.starts[i]!, t.ends[i]!);
}

/** Applies the key to the editor; returns true when it was handled (the caller prevents default). */
export function handleEditorKey(ed: AnnotationEditor, k: KeyInput): boolean {
  const key = k.key.length === 1 ? k.key.toLowerCase() : k.key;
  if (k.ctrl && key === 'z') return run(() => (k.shift ? ed.redo() : ed.undo()));
  if (k.ctrl && key === 'y') return run(() => ed.redo());
  const isSideways = key === 'ArrowLeft' || key === 'ArrowRight';
  // Alt+← / Alt+→ are the browser's Back and Forward (back to Evaluate, or to Documents): the
  // text took them as ← / →, so Back from the keyboard did nothing with the text focused.
  if (k.alt && isSideways && !k.shift && !k.ctrl) return false;
  if (k.ctrl && isSideways && !k.shift && !k.alt && ed.mode === 'idle')
    return run(() => selectWord(ed, key === 'ArrowLeft' ? -1 : 1));
  if (k.ctrl) return false;
  if (key === 'Escape') return run(() => ed.cancel());
  if (ed.mode === 'pick-target') {
    if (key === 'ArrowLeft' || key === 'ArrowUp') return run(() => ed.moveTarget(-1));
    if (key === 'ArrowRight' || key === 'ArrowDown') return run(() => ed.moveTarget(1));
    if (key === 'Enter') return run(() => ed.confirmTarget());
    return false;
  }
  if (ed.mode === 'pick-type') {
    if (key === 'ArrowUp' || key === 'ArrowLeft') return run(() => ed.moveType(-1));
    if (key === 'ArrowDown' || key === 'ArrowRight') return run(() => ed.moveType(1));
    if (key === 'Enter') return run(() => ed.chooseType());
    if (/^[1-9]$/.test(key)) return run(() => ed.chooseType(Number(key) - 1));
    return false;
  }
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    const dir = key === 'ArrowLeft' ? -1 : 1;
    if (k.shift) return run(() => ed.adjust(k.alt ? 'start' : 'end', dir));
    return run(() => ed.selectNext(dir));
  }
  if (key === 'Delete' || key === 'Backspace') return run(() => ed.deleteSelected());
  if (key === 'Enter') return run(() => ed.acceptSelected());
  if (k.alt || key.length !== 1) return false;
  if (key === 'r' && ed.pending === null) return run(() => ed.startRelation());
  // Case-blind: a schema saved through the API (not the Projects screen) may hold "D".
  const type = ed.schema.entityTypes.find((t) => t.shortcut?.toLowerCase() === key);
  if (type && (ed.pending !== null || ed.selectedKey !== null))
    return run(() => ed.label(type.name));
  // A label key with nothing selected did nothing at all: say what it needs, as R does.
  if (type)
    return run(() => {
      ed.hint = `Select text first (drag over it, or Ctrl+→ word by word), then press ${key} to label it ${type.name}.`;
    });
  return false;
}
