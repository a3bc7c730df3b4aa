import { describe, expect, it } from 'vitest';
import { openAtOf, wayBackFrom, wayBackOf } from './way-back.ts';

describe('the editor’s way back to Evaluate or Run', () => {
  it('is one step back for a document opened from Evaluate or Run, and none from Documents', () => {
    expect(wayBackFrom('evaluate', null)).toEqual({ view: 'evaluate', steps: 1 });
    expect(wayBackFrom('documents', null)).toBeNull();
    expect(wayBackFrom('run', null)).toEqual({ view: 'run', steps: 1 });
    expect(wayBackFrom('models', null)).toBeNull();
  });

  it('is kept one step further by the next or previous document, and not made by one without it', () => {
    const first = wayBackFrom('evaluate', null);
    const second = wayBackFrom('annotate', first);
    expect(second).toEqual({ view: 'evaluate', steps: 2 });
    expect(wayBackFrom('annotate', second)).toEqual({ view: 'evaluate', steps: 3 });
    expect(wayBackFrom('annotate', null)).toBeNull();
  });

  it('is read back from a history entry (a reload, Back, Forward), and a foreign or damaged state is none', () => {
    expect(wayBackOf({ wayBack: { view: 'evaluate', steps: 2 } })).toEqual({ view: 'evaluate', steps: 2 });
    for (const state of [null, undefined, 'x', {}, { wayBack: null }, { wayBack: { view: 'train', steps: 1 } },
      { wayBack: { view: 'evaluate', steps: 0 } }, { wayBack: { view: 'evaluate', steps: 1.5 } }, { wayBack: { view: 'evaluate' } }])
      expect(wayBackOf(state)).toBeNull();
  });
});

describe('where a document opens in the editor', () => {
  it('is the span a history entry holds, and none for a missing or malformed one', () => {
    expect(openAtOf({ at: { start: 4, end: 9 } })).toEqual({ start: 4, end: 9 });
    for (const state of [null, {}, { at: null }, { at: { start: 9, end: 4 } }, { at: { start: -1, end: 4 } }, { at: { start: '4', end: 9 } }])
      expect(openAtOf(state)).toBeNull();
  });
});
