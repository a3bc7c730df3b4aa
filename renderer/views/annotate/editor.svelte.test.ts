import { describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import type { AnnotationEdit } from '../../../engine/api/contract.ts';
import { AnnotationEditor, PENDING_KEY } from './editor.svelte.ts';
import { SCHEMA, at, detail, detailWithSuggestedTreats } from './test-document.ts';

/** What lib/api.ts's call() rejects with (that module needs a window). */
const apiError = (code: string, message: string): Error => Object.assign(new Error(message), { name: 'ApiError', code });

function make(opts: { failSave?: boolean } = {}): {
  ed: AnnotationEditor;
  saved: AnnotationEdit[][];
} {
  const saved: AnnotationEdit[][] = [];
  const ed = new AnnotationEditor(detail(), SCHEMA, {
    debounceMs: 1_000_000,
    save: (edits) => {
      if (opts.failSave)
        return Promise.reject(new Error('Relation type treats does not allow Disease → Chemical.'));
      saved.push(edits);
      return Promise.resolve({ ...detail().summary, status: 'in-progress' });
    },
    reload: () => Promise.resolve(detail()),
  });
  return { ed, saved };
}

describe('AnnotationEditor', () => {
  it('counts characters as the Documents list does: an emoji or a flag by code points, not UTF-16 halves', () => {
    const text = 'Feeling 😀👍🏽 better in Straße, 患者 🇫🇷.';
    const ed = new AnnotationEditor({ ...detail(), text, entities: [], relations: [] }, SCHEMA, {
      debounceMs: 1_000_000,
      save: () => Promise.resolve(detail().summary),
      reload: () => Promise.resolve(detail()),
    });
    expect(ed.characters).toBe([...text].length);
    expect(ed.characters).toBeLessThan(text.length);
  });

  it('snaps a selection to whole tokens and ignores blank selections', () => {
    const { ed } = make();
    ed.selectRange(at('RCA1'), at('RCA1') + 2); // inside "BRCA1"
    expect(ed.pending).toEqual({ start: at('BRCA1'), end: at('BRCA1') + 5 });
    ed.selectRange(at('with') + 2, at('BRCA1') + 1); // "th B" → "with BRCA1"
    expect(ed.pending).toEqual({ start: at('with'), end: at('BRCA1') + 5 });
    ed.selectRange(at(' BRCA1'), at(' BRCA1') + 1); // a single space
    expect(ed.pending).toBeNull();
  });

  it('creates an entity with a shortcut key, undoes and redoes it, and saves edits in order', async () => {
    const { ed, saved } = make();
    ed.selectRange(at('BRCA1'), at('BRCA1') + 5);
    expect(ed.handleKey({ key: 'g' })).toBe(true);
    expect(ed.entities.map((e) => [e.key, e.type, e.text])).toContainEqual(['T5', 'Gene', 'BRCA1']);
    expect(ed.selectedKey).toBe('T5');
    expect(ed.pending).toBeNull();
    expect(ed.handleKey({ key: 'z', ctrl: true })).toBe(true);
    expect(ed.entities.some((e) => e.key === 'T5')).toBe(false);
    expect(ed.canRedo).toBe(true);
    ed.handleKey({ key: 'Z', ctrl: true, shift: true });
    expect(ed.entities.some((e) => e.key === 'T5')).toBe(true);
    expect(ed.saveState).toBe('pending');
    await ed.flush();
    expect(ed.saveState).toBe('saved');
    expect(saved.flat().map((e) => e.op)).toEqual(['add-entity', 'delete-entity', 'add-entity']);
  });

  it('says what a label key needs when nothing is selected, and adds nothing', () => {
    const { ed } = make();
    const before = ed.entities.length;
    expect(ed.handleKey({ key: 'd' })).toBe(true);
    expect(ed.entities).toHaveLength(before);
    expect(ed.hint).toBe('Select text first (drag over it, or Ctrl+→ word by word), then press d to label it Disease.');
    ed.selectRange(at('olaparib'), at('olaparib') + 8);
    ed.handleKey({ key: 'c' });
    expect(ed.hint).toBeNull();
    expect(ed.entities.map((e) => [e.type, e.text])).toContainEqual(['Chemical', 'olaparib']);
  });

  it('matches label keys case-blind, so an upper-case shortcut from the API still works', () => {
    const ed = new AnnotationEditor(detail(), { ...SCHEMA, entityTypes: [{ name: 'Gene', color: '#1c7ed6', shortcut: 'G' }] }, {
      debounceMs: 1_000_000,
      save: () => Promise.resolve(detail().summary),
      reload: () => Promise.resolve(detail()),
    });
    ed.selectRange(at('BRCA1'), at('BRCA1') + 5);
    expect(ed.handleKey({ key: 'g' })).toBe(true);
    expect(ed.entities.at(-1)).toMatchObject({ type: 'Gene', text: 'BRCA1' });
  });

  it('does not add the same span with the same type twice: it selects the existing entity', () => {
    const { ed } = make();
    const count = ed.entities.length;
    ed.selectRange(at('breast'), at('cancer') + 6); // T1, Disease
    ed.handleKey({ key: 'd' });
    expect(ed.entities.length).toBe(count);
    expect(ed.selectedKey).toBe('T1');
    expect(ed.hint).toBe('This text is already labelled Disease; it is selected now.');
    ed.selectRange(at('breast'), at('cancer') + 6);
    ed.handleKey({ key: 'g' }); // another type on the same text is a new entity
    expect(ed.entities.length).toBe(count + 1);
    ed.selectRange(at('olaparib'), at('olaparib') + 8); // the model's suggestion T4, Chemical
    ed.handleKey({ key: 'c' });
    expect(ed.entities.length).toBe(count + 1);
    expect(ed.entity('T4')?.status).toBe('accepted');
  });

  it('lays out nested and overlapping spans in separate lanes', () => {
    const { ed } = make();
    ed.selectRange(at('BRCA1'), at('cancer') + 6); // "BRCA1-associated breast cancer" contains T1
    ed.handleKey({ key: 'd' });
    flushSync();
    const outer = ed.marks.find((m) => m.key === 'T5')!;
    const inner = ed.marks.find((m) => m.key === 'T1')!;
    expect(outer.lane).toBe(0);
    expect(inner.lane).toBe(1);
    const segs = ed.segments(0);
    const breast = segs.find((s) => s.start === at('breast'))!;
    expect(breast.marks.map((m) => m.key)).toEqual(['T5', 'T1']);
    expect(breast.heads.map((m) => m.key)).toEqual(['T1']);
    // A pending selection overlapping both is drawn too.
    ed.selectRange(at('cancer'), at('olaparib') + 3);
    expect(ed.segments(0).some((s) => s.marks.some((m) => m.key === PENDING_KEY))).toBe(true);
  });

  it('creates a relation by keyboard: R, arrows to the target, Enter, Enter', () => {
    const { ed } = make();
    ed.handleKey({ key: 'ArrowRight' }); // first entity in reading order: breast cancer
    expect(ed.selectedKey).toBe('T1');
    ed.handleKey({ key: 'ArrowRight' });
    expect(ed.selectedKey).toBe('T4');
    ed.handleKey({ key: 'r' });
    expect(ed.mode).toBe('pick-target');
    expect(ed.relationTarget).toBe('T1');
    ed.handleKey({ key: 'Enter' });
    expect(ed.mode).toBe('pick-type');
    expect(ed.allowedTypes.map((t) => t.name)).toEqual(['treats']);
    ed.handleKey({ key: 'Enter' });
    expect(ed.relations).toEqual([
      { key: 'R1', type: 'treats', arg1: 'T4', arg2: 'T1', origin: 'annotator', status: 'final' },
    ]);
    expect(ed.mode).toBe('idle');
  });

  it('takes a clicked entity as the target after R or Relate…, not as a new selection', () => {
    const { ed } = make();
    ed.select('T4'); // olaparib (Chemical)
    ed.startRelation();
    expect(ed.mode).toBe('pick-target');
    ed.clickEntity('T1'); // breast cancer (Disease)
    expect(ed.mode).toBe('pick-type');
    expect(ed.relationSource).toBe('T4');
    expect(ed.relationTarget).toBe('T1');
    ed.chooseType(0);
    expect(ed.relations.map((r) => [r.type, r.arg1, r.arg2])).toEqual([['treats', 'T4', 'T1']]);
    // Outside the relation flow a click selects; on the source itself it leaves the flow.
    ed.clickEntity('T1');
    expect([ed.mode, ed.selectedKey]).toEqual(['idle', 'T1']);
    ed.startRelation();
    ed.clickEntity('T1');
    expect([ed.mode, ed.selectedKey]).toEqual(['idle', 'T1']);
  });

  it('refuses a relation the schema does not allow, with a hint', () => {
    const { ed } = make();
    ed.select('T1');
    ed.handleKey({ key: 'r' });
    ed.handleKey({ key: 'Enter' }); // Disease → Chemical
    expect(ed.mode).toBe('pick-target');
    expect(ed.hint).toMatch(/No relation type allows Disease → Chemical/);
    // The schema's treats goes the other way: the hint says so, and how to start from the Chemical.
    expect(ed.hint).toBe('No relation type allows Disease → Chemical. The type “treats” goes Chemical → Disease: press Esc, select the Chemical and press R to start from it.');
    ed.handleKey({ key: 'Escape' });
    expect(ed.mode).toBe('idle');
  });

  it('accepts a suggested entity when a relation is made from it, as the store does', () => {
    const { ed } = make();
    ed.dragRelation('T4', 'T1'); // T4 is a model suggestion
    ed.chooseType(0);
    expect(ed.entity('T4')?.status).toBe('accepted');
    ed.undo(); // one step: the relation goes and T4 is a suggestion again
    expect(ed.relations).toEqual([]);
    expect(ed.entity('T4')?.status).toBe('suggested');
  });

  it('deletes an entity with its relations and restores both on undo', () => {
    const { ed } = make();
    ed.dragRelation('T4', 'T1');
    ed.chooseType(0);
    ed.select('T1');
    ed.handleKey({ key: 'Delete' });
    expect(ed.entities.map((e) => e.key)).toEqual(['T4']);
    expect(ed.relations).toEqual([]);
    ed.undo();
    expect(ed.entities.map((e) => e.key).sort()).toEqual(['T1', 'T4']);
    expect(ed.relations.map((r) => r.key)).toEqual(['R1']);
  });

  it('refuses a relabel that would break a relation rule, with a hint, and keeps the undo history', async () => {
    const { ed, saved } = make();
    ed.dragRelation('T4', 'T1'); // olaparib treats breast cancer
    ed.chooseType(0);
    ed.select('T1');
    expect(ed.handleKey({ key: 'c' })).toBe(true); // Disease → Chemical would leave "treats" Chemical → Chemical
    expect(ed.hint).toBe(
      'Cannot make it Chemical: its relation treats does not allow Chemical → Chemical. Delete that relation first (select it in the side panel, then Delete).',
    );
    expect(ed.entity('T1')?.type).toBe('Disease');
    await ed.flush();
    expect(saved.flat().map((e) => e.op)).toEqual(['update-entity', 'add-relation']); // its suggested source accepted too
    expect(ed.canUndo).toBe(true);
    ed.select('T4');
    ed.handleKey({ key: 'c' }); // the same type: accepts the suggestion, no hint
    expect(ed.hint).toBeNull();
    expect(ed.entity('T4')?.status).toBe('accepted');
  });

  it('changes a relation\'s type and reverses it where the schema allows, undoably', async () => {
    const schema = { ...SCHEMA, relationTypes: [...SCHEMA.relationTypes, { name: 'mentions', arg1Types: [], arg2Types: [], color: '#888888', symmetric: false }] };
    const saved: AnnotationEdit[][] = [];
    const ed = new AnnotationEditor(detail(), schema, {
      debounceMs: 1_000_000,
      save: (edits) => (saved.push(edits), Promise.resolve(detail().summary)),
      reload: () => Promise.resolve(detail()),
    });
    ed.dragRelation('T4', 'T1');
    ed.chooseType(0); // treats: olaparib → breast cancer, highlighted
    expect(ed.selectedRelationKey).toBe('R1');
    ed.changeRelation('reverse'); // treats does not go Disease → Chemical
    expect(ed.hint).toBe('Relation type treats does not allow Disease → Chemical.');
    expect(ed.relations[0]).toMatchObject({ arg1: 'T4', arg2: 'T1', type: 'treats' });
    ed.changeRelation({ type: 'mentions' });
    expect(ed.hint).toBeNull();
    ed.changeRelation('reverse');
    expect(ed.relations).toMatchObject([{ key: 'R1', type: 'mentions', arg1: 'T1', arg2: 'T4', status: 'final' }]);
    expect(ed.selectedRelationKey).toBe('R1');
    ed.undo();
    ed.undo();
    expect(ed.relations).toMatchObject([{ key: 'R1', type: 'treats', arg1: 'T4', arg2: 'T1' }]);
    await ed.flush();
    expect(saved.flat().map((e) => e.op)).toEqual([
      'update-entity', 'add-relation', 'update-relation', 'delete-relation', 'add-relation', 'delete-relation', 'add-relation', 'update-relation',
    ]);
  });

  it('accepts and rejects model suggestions instead of deleting them', () => {
    const { ed } = make();
    ed.select('T4');
    ed.handleKey({ key: 'Enter' });
    expect(ed.entity('T4')?.status).toBe('accepted');
    ed.undo();
    ed.select('T4');
    ed.handleKey({ key: 'Backspace' });
    expect(ed.entity('T4')?.status).toBe('rejected');
    expect(ed.visible.map((e) => e.key)).toEqual(['T1']);
  });

  it('accepts a suggested relation with Enter (its suggested arguments too), and all suggestions at once, undoably', async () => {
    const d = detailWithSuggestedTreats();
    const saved: AnnotationEdit[][] = [];
    const ed = new AnnotationEditor(d, SCHEMA, {
      debounceMs: 1_000_000,
      save: (edits) => (saved.push(edits), Promise.resolve(d.summary)),
      reload: () => Promise.resolve(d),
    });
    ed.select('T1');
    ed.selectRelation('R1');
    expect(ed.handleKey({ key: 'Enter' })).toBe(true);
    expect(ed.relations[0]?.status).toBe('accepted');
    expect(ed.entity('T4')?.status).toBe('accepted');
    expect(ed.entity('T1')?.status).toBe('final');
    ed.undo(); // one step takes both back
    expect([ed.relations[0]?.status, ed.entity('T4')?.status]).toEqual(['suggested', 'suggested']);
    ed.reviewAll('rejected');
    expect(ed.visible.map((e) => e.key)).toEqual(['T1']);
    expect(ed.shownRelations).toEqual([]);
    expect(ed.undone?.text).toBe('Rejected 2 suggestions');
    ed.undo();
    ed.reviewAll('accepted');
    expect([ed.relations[0]?.status, ed.entity('T4')?.status]).toEqual(['accepted', 'accepted']);
    await ed.flush();
    // Entities are accepted before the relation that uses them; rejected after it.
    expect(saved.flat().map((e) => `${e.op} ${'key' in e ? e.key : ''} ${'status' in e ? e.status : ''}`)).toEqual([
      'update-entity T4 accepted',
      'update-relation R1 accepted',
      'update-relation R1 suggested',
      'update-entity T4 suggested',
      'update-relation R1 rejected',
      'update-entity T4 rejected',
      'update-entity T4 suggested',
      'update-relation R1 suggested',
      'update-entity T4 accepted',
      'update-relation R1 accepted',
    ]);
  });

  it('rejecting a suggested entity rejects the relations that use it, in one undoable step', () => {
    const d = detailWithSuggestedTreats();
    const ed = new AnnotationEditor(d, SCHEMA, {
      debounceMs: 1_000_000,
      save: () => Promise.resolve(d.summary),
      reload: () => Promise.resolve(d),
    });
    ed.select('T4');
    ed.handleKey({ key: 'Delete' });
    expect(ed.entity('T4')?.status).toBe('rejected');
    expect(ed.relations[0]?.status).toBe('rejected'); // not left drawn to a hidden entity
    expect(ed.shownRelations).toEqual([]);
    ed.undo();
    expect([ed.entity('T4')?.status, ed.relations[0]?.status]).toEqual(['suggested', 'suggested']);
  });

  it('adjusts span edges by whole tokens with Shift(+Alt)+arrows', () => {
    const { ed } = make();
    ed.select('T1');
    ed.handleKey({ key: 'ArrowLeft', shift: true, alt: true }); // start one token earlier: "associated breast cancer"
    expect(ed.entity('T1')?.spans).toEqual([{ start: at('associated'), end: at('cancer') + 6 }]);
    ed.handleKey({ key: 'ArrowLeft', shift: true }); // end one token earlier
    expect(ed.entity('T1')?.spans).toEqual([{ start: at('associated'), end: at('breast') + 6 }]);
    ed.clear();
    ed.caret = at('daily');
    ed.handleKey({ key: 'ArrowRight', shift: true }); // keyboard-only: start a pending span at the caret
    expect(ed.pending).toEqual({ start: at('daily'), end: at('daily') + 5 });
  });

  it('steps over punctuation with Ctrl+arrows: "." alone is never the word selected', () => {
    const text = 'Hepatology review.\n\nA 38-year-old man, on (tenofovir).';
    const ed = new AnnotationEditor({ ...detail(), text, entities: [], relations: [] }, SCHEMA, {
      debounceMs: 1_000_000,
      save: () => Promise.resolve(detail().summary),
      reload: () => Promise.resolve(detail()),
    });
    const words: string[] = [];
    ed.caret = 0;
    for (let n = 0; n < 10; n++) {
      ed.handleKey({ key: 'ArrowRight', ctrl: true });
      words.push(text.slice(ed.pending!.start, ed.pending!.end));
    }
    // Before: "Hepatology", "review", ".", "A", "38", "-", … and at the end ")" and ".".
    // The last press finds no word after "tenofovir" (only ")."): the selection stays.
    expect(words).toEqual(['Hepatology', 'review', 'A', '38', 'year', 'old', 'man', 'on', 'tenofovir', 'tenofovir']);
    ed.handleKey({ key: 'ArrowLeft', ctrl: true });
    expect(text.slice(ed.pending!.start, ed.pending!.end)).toBe('on');
    ed.selectRange(text.indexOf('review'), text.indexOf('review') + 6);
    ed.handleKey({ key: 'ArrowLeft', ctrl: true });
    expect(text.slice(ed.pending!.start, ed.pending!.end)).toBe('Hepatology');
    // Shift still takes punctuation in: "review" grown by one token is "review.".
    ed.selectRange(text.indexOf('review'), text.indexOf('review') + 6);
    ed.handleKey({ key: 'ArrowRight', shift: true });
    expect(text.slice(ed.pending!.start, ed.pending!.end)).toBe('review.');
  });

  it('selects word by word with Ctrl+arrows from the caret, a selection or an entity, then labels it', () => {
    const { ed } = make();
    ed.caret = 0;
    expect(ed.handleKey({ key: 'ArrowRight', ctrl: true })).toBe(true);
    expect(ed.pending).toEqual({ start: 0, end: at('Patients') + 8 });
    ed.handleKey({ key: 'ArrowRight', ctrl: true });
    expect(ed.pending).toEqual({ start: at('with'), end: at('with') + 4 });
    ed.handleKey({ key: 'ArrowLeft', ctrl: true });
    expect(ed.pending).toEqual({ start: 0, end: 8 });
    ed.handleKey({ key: 'ArrowLeft', ctrl: true }); // nothing before the first word: unchanged
    expect(ed.pending).toEqual({ start: 0, end: 8 });
    // From an entity ("breast cancer"), the word after it; then grown and labelled.
    ed.select('T1');
    ed.handleKey({ key: 'ArrowRight', ctrl: true });
    expect(ed.selectedKey).toBeNull();
    expect(ed.pending).toEqual({ start: at('received'), end: at('received') + 8 });
    ed.handleKey({ key: 'ArrowRight', ctrl: true });
    ed.handleKey({ key: 'ArrowRight', shift: true });
    expect(ed.text.slice(ed.pending!.start, ed.pending!.end)).toBe('olaparib daily');
    ed.handleKey({ key: 'c' });
    expect(ed.entity(ed.selectedKey)?.text).toBe('olaparib daily');
    // While picking a relation target, Ctrl+arrows do nothing (the arrows pick).
    ed.select('T1');
    ed.startRelation();
    expect(ed.handleKey({ key: 'ArrowRight', ctrl: true })).toBe(false);
    expect(ed.mode).toBe('pick-target');
  });

  it('reloads the saved state when a save fails', async () => {
    const { ed } = make({ failSave: true });
    ed.select('T1');
    ed.handleKey({ key: 'c' });
    expect(ed.entity('T1')?.type).toBe('Chemical');
    await ed.flush();
    expect(ed.saveState).toBe('error');
    expect(ed.saveError).toBe('Your last change was not saved: Relation type treats does not allow Disease → Chemical. The document was reloaded as last saved.');
    expect(ed.entity('T1')?.type).toBe('Disease');
    expect(ed.canUndo).toBe(false);
  });

  it('saves on the revision it holds; a change made elsewhere is reloaded, and new keys do not collide with it', async () => {
    const bases: number[] = [];
    const elsewhere = detail();
    elsewhere.summary.revision = 4;
    elsewhere.entities.push({ key: 'T5', type: 'Gene', spans: [{ start: at('BRCA1'), end: at('BRCA1') + 5 }], text: 'BRCA1', origin: 'annotator', status: 'final' });
    let calls = 0;
    const saved: AnnotationEdit[][] = [];
    const ed = new AnnotationEditor(detail(), SCHEMA, {
      debounceMs: 1_000_000,
      save: (edits, base) => {
        bases.push(base);
        if (calls++ === 0) return Promise.reject(apiError('conflict', 'This document was changed in another window, or by a model run, after it was opened here.'));
        saved.push(edits);
        return Promise.resolve({ ...elsewhere.summary, revision: base + 1 });
      },
      reload: () => Promise.resolve(elsewhere),
    });
    ed.select('T1');
    ed.handleKey({ key: 'c' });
    await ed.flush();
    expect(ed.saveError).toBe(
      'This document was changed in another window, or by a model run, after it was opened here. Your last change was not saved; the document now shows the saved version, with those changes. Make your change again.',
    );
    expect(ed.entity('T5')?.type).toBe('Gene');
    ed.selectRange(at('olaparib'), at('olaparib') + 8);
    ed.handleKey({ key: 'd' });
    await ed.flush();
    expect(bases).toEqual([3, 4]);
    expect(saved.flat()).toMatchObject([{ op: 'add-entity', entity: { key: 'T6', type: 'Disease' } }]);
  });

  it('keeps edits while Benchtop is unreachable and saves them, in order, once it answers', async () => {
    let down = true;
    const saved: AnnotationEdit[][] = [];
    const ed = new AnnotationEditor(detail(), SCHEMA, {
      debounceMs: 1_000_000,
      retryMs: 5,
      save: (edits, base) => {
        if (down) return Promise.reject(apiError('engine-unavailable', 'Benchtop is not running.'));
        saved.push(edits);
        return Promise.resolve({ ...detail().summary, revision: base + 1 });
      },
      reload: () => Promise.reject(new Error('reload must not be needed')),
    });
    ed.select('T1');
    ed.handleKey({ key: 'c' });
    await ed.flush();
    expect(ed.saveState).toBe('error');
    expect(ed.saveError).toMatch(/^Your changes are not saved yet: Benchtop is not running\. They are kept in this window/);
    expect(ed.entity('T1')?.type).toBe('Chemical');
    expect(ed.canUndo).toBe(true);
    // A later edit must not be saved without the first one (nor say "All changes saved" over it).
    ed.selectRange(at('daily'), at('daily') + 5);
    ed.handleKey({ key: 'c' });
    await new Promise((r) => setTimeout(r, 30));
    expect(ed.saveState).toBe('error');
    expect(saved).toEqual([]);
    down = false;
    await vi.waitFor(() => expect(ed.saveState).toBe('saved'));
    expect(ed.saveError).toBeNull();
    expect(saved.flat().map((e) => e.op)).toEqual(['update-entity', 'add-entity']);
    expect(ed.summary?.revision).toBe(4);
  });

  it('says so when the saved version cannot be loaded either', async () => {
    const ed = new AnnotationEditor(detail(), SCHEMA, {
      debounceMs: 1_000_000,
      save: () => Promise.reject(apiError('unauthorized', 'This page has no valid access token')),
      reload: () => Promise.reject(apiError('unauthorized', 'This page has no valid access token')),
    });
    ed.select('T1');
    ed.handleKey({ key: 'c' });
    await ed.flush();
    expect(ed.saveError).toBe(
      'Your last change was not saved: This page has no valid access token. The saved version could not be loaded either; what you see may not be saved. Reopen the document once Benchtop is running again.',
    );
  });
});
