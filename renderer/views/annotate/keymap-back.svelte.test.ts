// Alt+← / Alt+→ in the editor's text are the browser's Back and Forward (back to Evaluate or to
// Documents), not ← / → (the text took them, so Back from the keyboard did nothing there).
import { describe, expect, it } from 'vitest';
import { AnnotationEditor } from './editor.svelte.ts';
import { SCHEMA, detail } from './test-document.ts';

function make(): AnnotationEditor {
  return new AnnotationEditor(detail(), SCHEMA, {
    debounceMs: 1_000_000,
    save: () => Promise.resolve(detail().summary),
    reload: () => Promise.resolve(detail()),
  });
}

describe('the editor’s keys and the browser’s Back', () => {
  it('leaves Alt+← and Alt+→ to the browser, in every mode, and keeps ←, → and Alt+Shift+←', () => {
    const ed = make();
    expect(ed.handleKey({ key: 'ArrowLeft', alt: true })).toBe(false);
    expect(ed.handleKey({ key: 'ArrowRight', alt: true })).toBe(false);
    expect(ed.selectedKey).toBeNull();
    expect(ed.handleKey({ key: 'ArrowRight' })).toBe(true);
    expect(ed.selectedKey).toBe('T1');
    ed.handleKey({ key: 'r' });
    expect(ed.mode).toBe('pick-target');
    const target = ed.relationTarget;
    expect(ed.handleKey({ key: 'ArrowRight', alt: true })).toBe(false);
    expect(ed.relationTarget).toBe(target);
    ed.handleKey({ key: 'Escape' });
    expect(ed.handleKey({ key: 'ArrowLeft', alt: true, shift: true })).toBe(true); // its start, a word earlier
  });
});
