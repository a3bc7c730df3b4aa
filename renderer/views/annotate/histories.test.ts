import { describe, expect, it } from 'vitest';
import { History } from '../../lib/annotate/history.ts';
import { keepHistory, takeHistory } from './histories.ts';

const step = { label: 'x', edits: [], inverse: [] };

describe('undo histories across documents', () => {
  it('gives a document its steps back only if it is unchanged, once, and keeps the last 20', () => {
    const h = new History();
    h.push(step);
    keepHistory(1, h, () => 7);
    expect(takeHistory(1, 7)).toBe(h);
    expect(takeHistory(1, 7).canUndo).toBe(false); // taken already
    keepHistory(2, h, () => 7);
    expect(takeHistory(2, 8)).not.toBe(h); // changed elsewhere meanwhile
    keepHistory(3, h, () => undefined); // closed with a save still pending or failed
    expect(takeHistory(3, 7)).not.toBe(h);
    for (let id = 100; id < 125; id++) keepHistory(id, h, () => 1);
    expect(takeHistory(100, 1)).not.toBe(h);
    expect(takeHistory(124, 1)).toBe(h);
  });
});
