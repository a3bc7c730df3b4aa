import { describe, expect, it } from 'vitest';
import { goldNotes, type GoldEntity } from './gold-notes.ts';

const e = (type: string, ...spans: [number, number][]): GoldEntity => ({
  type,
  spans: spans.map(([start, end]) => ({ start, end })),
});

describe('goldNotes', () => {
  it('says nothing about plain entities of known types, adjacent ones included', () => {
    expect(goldNotes([[e('Disease', [0, 5]), e('Disease', [5, 9])], []], ['Disease'])).toEqual([]);
  });

  it('names unknown types and counts discontinuous and overlapping entities per document', () => {
    const notes = goldNotes(
      [
        [e('Disease', [0, 9]), e('Disease', [2, 4]), e('Drug', [20, 25]), e('Disease', [30, 33], [40, 44])],
        // Same bounds twice, and a chain where the third overlaps only the first's reach.
        [e('Disease', [0, 4]), e('Disease', [0, 4]), e('Disease', [10, 30]), e('Disease', [12, 14]), e('Disease', [20, 22])],
        [e('Disease', [0, 4])],
      ],
      ['Disease'],
    );
    expect(notes).toEqual([
      'entity types the model does not predict (all count as missed): Drug',
      expect.stringMatching(/^1 annotated entity is discontinuous: /),
      expect.stringMatching(/^7 annotated entities overlap another \(nested or duplicated\): /),
    ]);
  });

  it('looks at the covering span of a discontinuous entity for overlaps', () => {
    const notes = goldNotes([[e('Disease', [0, 3], [10, 14]), e('Disease', [5, 8])]], ['Disease']);
    expect(notes[1]).toMatch(/^2 annotated entities overlap another/);
  });
});
