// The editor's screen-reader sentences (announce.ts), driven through the keyboard map.
import { describe, expect, it } from 'vitest';
import { describeChange, snapshot } from './announce.ts';
import { AnnotationEditor } from './editor.svelte.ts';
import type { KeyInput } from './keymap.ts';
import { SCHEMA, at, detail, detailWithSuggestedTreats } from './test-document.ts';

function make(): AnnotationEditor {
  return new AnnotationEditor(detail(), SCHEMA, {
    debounceMs: 1_000_000,
    save: () => Promise.resolve(detail().summary),
    reload: () => Promise.resolve(detail()),
  });
}

/** What the live region says after `act`. */
function say(ed: AnnotationEditor, act: (() => void) | string | KeyInput): string | null {
  const before = snapshot(ed);
  if (typeof act === 'function') act();
  else ed.handleKey(typeof act === 'string' ? { key: act } : act);
  return describeChange(before, snapshot(ed));
}

describe('editor announcements', () => {
  it('says that deleting an entity took its relations with it', () => {
    const ed = make();
    ed.dragRelation('T4', 'T1');
    ed.chooseType(0);
    ed.select('T1');
    expect(say(ed, 'Delete')).toBe('Deleted Disease “breast cancer” and its relation');
  });

  it('reads a suggested relation with what Enter and Delete do, and its acceptance', () => {
    const d = detailWithSuggestedTreats();
    const ed = new AnnotationEditor(d, SCHEMA, {
      debounceMs: 1_000_000,
      save: () => Promise.resolve(d.summary),
      reload: () => Promise.resolve(d),
    });
    ed.select('T1');
    expect(say(ed, () => ed.selectRelation('R1'))).toBe(
      'treats: “olaparib” → “breast cancer” (suggestion: Enter accepts it, Delete rejects it)',
    );
    expect(say(ed, 'Enter')).toBe('Accepted treats: “olaparib” → “breast cancer”');
    ed.schema = { ...SCHEMA, relationTypes: [...SCHEMA.relationTypes, { name: 'mentions', arg1Types: [], arg2Types: [], color: '#888888', symmetric: false }] };
    expect(say(ed, () => ed.changeRelation({ type: 'mentions' }))).toBe('Changed to mentions: “olaparib” → “breast cancer”');
    expect(say(ed, () => ed.changeRelation('reverse'))).toBe('Changed to mentions: “breast cancer” → “olaparib”');
  });

  it('names the entity the arrows move to, with its place in reading order', () => {
    const ed = make();
    expect(say(ed, 'ArrowRight')).toBe('Disease: “breast cancer”, entity 1 of 2');
    expect(say(ed, 'ArrowRight')).toBe('Chemical: “olaparib” (suggestion), entity 2 of 2');
    expect(say(ed, 'ArrowRight')).toBeNull(); // already the last one: nothing changed
    expect(say(ed, 'Escape')).toBe('Nothing selected');
  });

  it('reads a pending span as it grows, then its label, relabel, accept and delete', () => {
    const ed = make();
    expect(say(ed, () => ed.selectRange(at('BRCA1'), at('BRCA1') + 5))).toBe(
      'Selected “BRCA1” (press a label key)',
    );
    const grown = say(ed, { key: 'ArrowRight', shift: true });
    expect(grown).toMatch(/^Selected “BRCA1\S+” \(press a label key\)$/);
    const mention = ed.text.slice(ed.pending!.start, ed.pending!.end);
    expect(say(ed, 'g')).toBe(`Labelled “${mention}” as Gene`);
    expect(say(ed, 'd')).toBe(`Labelled “${mention}” as Disease`);
    expect(say(ed, 'Delete')).toBe(`Deleted Disease “${mention}”`);
    ed.select('T4');
    expect(say(ed, 'Enter')).toBe('Accepted Chemical “olaparib”');
  });

  it('says a rejected suggestion is rejected', () => {
    const ed = make();
    ed.select('T4');
    expect(say(ed, 'Delete')).toBe('Rejected the suggestion Chemical “olaparib”');
  });

  it('walks through the keyboard relation flow', () => {
    const ed = make();
    ed.select('T4');
    expect(say(ed, 'r')).toBe(
      'Relation from “olaparib”: pick the target entity with the arrow keys, then press Enter. Target: Disease “breast cancer”, 1 of 1',
    );
    expect(say(ed, 'Escape')).toBe('Relation cancelled');
    ed.startRelation();
    expect(say(ed, 'Enter')).toBe(
      'Relation “olaparib” → “breast cancer”: choose its type with the arrow keys, then press Enter. treats, 1 of 1',
    );
    expect(say(ed, 'Enter')).toBe('treats: “olaparib” → “breast cancer”');
    expect(say(ed, 'Delete')).toBe('Deleted relation treats: “olaparib” → “breast cancer”');
  });

  it('never quotes the text around a mention', () => {
    const ed = make();
    const said = [
      say(ed, 'ArrowRight'),
      say(ed, 'ArrowRight'),
      say(ed, 'r'),
      say(ed, 'Enter'),
      say(ed, 'Enter'),
    ].join(' ');
    for (const word of ['Patients', 'received', 'daily', 'BRCA1']) expect(said).not.toContain(word);
  });

  it('names the step an undo or redo takes back, each time', () => {
    const ed = make();
    ed.selectRange(at('BRCA1'), at('BRCA1') + 5);
    expect(say(ed, 'd')).toBe('Labelled “BRCA1” as Disease');
    // Not "Deleted Disease …": the user undid a label, and hears that.
    expect(say(ed, { key: 'z', ctrl: true })).toBe('Undone: Add Disease');
    expect(say(ed, { key: 'y', ctrl: true })).toBe('Redone: Add Disease');
    expect(say(ed, { key: 'z', ctrl: true })).toBe('Undone: Add Disease');
    expect(say(ed, { key: 'z', ctrl: true })).toBeNull(); // nothing left to undo
  });
});
