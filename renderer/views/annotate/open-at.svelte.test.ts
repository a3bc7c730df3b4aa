import { describe, expect, it } from 'vitest';
import { AnnotationEditor, PENDING_KEY } from './editor.svelte.ts';
import { selectAt } from './open-at.ts';
import { SCHEMA, at, detail } from './test-document.ts';

function make(): AnnotationEditor {
  return new AnnotationEditor(detail(), SCHEMA, {
    debounceMs: 1_000_000,
    save: () => Promise.resolve(detail().summary),
    reload: () => Promise.resolve(detail()),
  });
}

describe('a document opened at Evaluate’s mistake', () => {
  it('selects the mention annotated there, else the text the model marked, ready to label', () => {
    const ed = make();
    selectAt(ed, { start: at('breast cancer'), end: at('breast cancer') + 'breast cancer'.length });
    expect(ed.selectedKey).toBe('T1');
    const fresh = make();
    selectAt(fresh, { start: at('cancer'), end: at('cancer') + 'cancer'.length }); // inside T1, not it
    expect(fresh.selectedKey).toBeNull();
    expect(fresh.pending).toEqual({ start: at('cancer'), end: at('cancer') + 6 });
    expect(fresh.segments(0).some((s) => s.marks.some((m) => m.key === PENDING_KEY))).toBe(true);
  });

  it('selects nothing beyond the end of the text (a document shortened since)', () => {
    const ed = make();
    selectAt(ed, { start: ed.text.length - 2, end: ed.text.length + 5 });
    expect([ed.selectedKey, ed.pending]).toEqual([null, null]);
  });
});
