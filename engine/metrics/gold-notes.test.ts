import { describe, expect, it } from 'vitest';
import { goldNotes, unscoredRelationsNote, type GoldEntity } from './gold-notes.ts';

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

describe('unscoredRelationsNote', () => {
  const doc = {
    entities: [
      { id: 'T1', normIds: ['D1'] },
      { id: 'T2', normIds: ['C1'] },
      { id: 'T3', normIds: ['D1'] },
      { id: 'T4', normIds: ['C2'] },
    ],
    relations: [
      { arg1: 'T1', arg2: 'T2' }, // reached (either order)
      { arg1: 'T3', arg2: 'T4' }, // no pair
      { arg1: 'D1', arg2: 'C1', byConcept: true }, // reached through T1–T2's concepts
      { arg1: 'D1', arg2: 'C2', byConcept: true }, // no pair of those concepts
    ],
  };
  it('counts the relations no candidate pair reaches, by entity or by concept', () => {
    const note = unscoredRelationsNote([doc], [{ doc: 0, arg1: 'T2', arg2: 'T1' }], [['CHEMICAL', 'DISEASE']], 50);
    expect(note).toBe(
      '2 of 4 annotated relations are not scored: the model only looks at pairs of entities in the same sentence, of the types it relates (CHEMICAL–DISEASE), with at most 50 other entities between them',
    );
    const all = [
      { doc: 0, arg1: 'T2', arg2: 'T1' },
      { doc: 0, arg1: 'T4', arg2: 'T3' },
    ];
    expect(unscoredRelationsNote([doc], all, [['CHEMICAL', 'DISEASE']], 50)).toBeUndefined();
  });
});
