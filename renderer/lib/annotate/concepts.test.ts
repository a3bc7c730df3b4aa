// Relations between concepts (PubTator CID lines): listed with each concept named by its first
// mention, rejected ones and relations between mentions left out.
import { describe, expect, it } from 'vitest';
import type { EntityRecord, RelationRecord } from '../../../engine/api/contract.ts';
import { conceptRelations } from './concepts.ts';

const ent = (key: string, start: number, text: string, normIds: string[], status: EntityRecord['status'] = 'final'): EntityRecord => ({
  key,
  type: 'Chemical',
  spans: [{ start, end: start + text.length }],
  text,
  origin: 'imported',
  status,
  normIds,
});
const rel = (key: string, arg1: string, arg2: string, extra: Partial<RelationRecord> = {}): RelationRecord => ({
  key,
  type: 'CID',
  arg1,
  arg2,
  origin: 'imported',
  status: 'final',
  byConcept: true,
  ...extra,
});

describe('conceptRelations', () => {
  const entities = [
    ent('T3', 200, 'Lithium carbonate', ['D016651']),
    ent('T1', 20, 'lithium carbonate', ['D016651']),
    ent('T2', 40, 'toxicity', ['D064420']),
    ent('T4', 90, 'cyanosis', ['D003490', 'D999999']),
    ent('T5', 10, 'rejected name', ['D003490'], 'rejected'),
  ];
  it('names each concept by the text of its first mention in the document', () => {
    expect(conceptRelations([rel('R1', 'D016651', 'D064420'), rel('R2', 'D016651', 'D999999')], entities)).toEqual([
      { key: 'R1', type: 'CID', arg1: 'D016651', arg2: 'D064420', name1: 'lithium carbonate', name2: 'toxicity', status: 'final' },
      { key: 'R2', type: 'CID', arg1: 'D016651', arg2: 'D999999', name1: 'lithium carbonate', name2: 'cyanosis', status: 'final' },
    ]);
  });
  it('keeps a concept no mention carries (unnamed), and leaves out rejected and mention relations', () => {
    const found = conceptRelations(
      [rel('R1', 'D016651', 'D000001'), rel('R2', 'D016651', 'D064420', { status: 'rejected' }), rel('R3', 'T1', 'T2', { byConcept: false })],
      entities,
    );
    expect(found.map((r) => [r.key, r.name1, r.name2])).toEqual([['R1', 'lithium carbonate', null]]);
  });
});
