// A document opened at a place (Evaluate's "Review in the editor" on a mistake): the editor
// selects it, so it is in view and ready to fix (it opened at the top of the text, and in a long
// document the reviewer had to find the mistake again).
import type { OpenAt } from '../../lib/state/way-back.ts';
import type { AnnotationEditor } from './editor.svelte.ts';

/**
 * Selects the entity that spans exactly `at` (a mention annotated, or the model's suggestion),
 * else the text itself, ready to label (a mention the model found that is not annotated).
 * Nothing when `at` is beyond the text.
 */
export function selectAt(ed: AnnotationEditor, at: OpenAt): void {
  if (at.end > ed.text.length) return;
  const exact = ed.visible.find((e) => e.spans[0]?.start === at.start && e.spans.at(-1)?.end === at.end);
  if (exact) ed.select(exact.key);
  else ed.selectRange(at.start, at.end);
}
