// The files of a distilled student without names, as task-distill.ts writes them (its metrics.json
// and lineage record): the teacher, your transfer text and the private datasets mixed in are named
// there; an export that leaves names out says each by kind and number and keeps all the rest.
import { describe, expect, it } from 'vitest';
import { type LineageRecord, lineageRecord } from '../distill/lineage.ts';
import { NAMES_WITHHELD, withheldMetrics, withheldModelCard, withheldRecord } from './export-names.ts';

const record = lineageRecord([
  { kind: 'teacher', source: 'teacher model "d341bef3" (identified by the sha256 of its weights)', sha256: 'aa', containsPhi: true, gradients: false },
  { kind: 'distill-transfer', source: 'passages sampled from the unigram distribution of the general corpus (seed 43)', containsPhi: false, gradients: true },
  { kind: 'distill-transfer', source: 'text from "doe_jane_transfer.txt"', sha256: 'bb', containsPhi: false, gradients: true },
  { kind: 'distill-private', source: 'private labelled workspace documents (smith_john_2024-03-02_discharge, 12 documents)', sha256: 'cc', weight: 0.5, containsPhi: true, gradients: true },
], { sha256: 'dd', tokens: 30522, shipped: null, source: 'the teacher model "d341bef3"', origin: 'file', from: { sha256: 'dd', tokens: 30522, shipped: null, source: 'the vocabulary file "/home/jane/smith.txt"', origin: 'file' } });

const metrics = {
  kind: 'distill',
  status: 'completed',
  steps: 1,
  settings: { task: 'ner', alpha: 0.5, seed: 42, transfer: 'random,doe_jane_transfer.txt' },
  teacher: { name: 'd341bef3', architecture: 'bert 2L-128' },
  student: { origin: 'preset small-2L-128', architecture: 'bert 2L-128', labels: ['O', 'B-Disease', 'I-Disease'] },
  transfer: {
    sentences: 34,
    sources: [
      { name: 'random', description: 'passages sampled from the unigram distribution of the general corpus (seed 43)', sentences: 32 },
      { name: 'doe_jane_transfer.txt', description: 'text from "doe_jane_transfer.txt"', sentences: 2, sha256: 'bb' },
    ],
  },
  test: null,
  lineage: record,
};

describe('a distilled student exported without names', () => {
  it('names no teacher, transfer file, dataset or vocabulary file, and keeps what it learned from', () => {
    const out = JSON.stringify([withheldMetrics(metrics), withheldRecord(record), withheldModelCard('ner', withheldRecord(record), withheldMetrics(metrics), false)]);
    for (const name of ['d341bef3', 'doe_jane', 'smith_john', '/home/jane']) expect(out).not.toContain(name);
    const withheld = withheldRecord(record);
    expect(withheld.phi_status).toBe('trained-on-phi');
    expect(withheld.entries.map((e) => [e.kind, e.source, e.sha256, e.weight, e.containsPhi])).toEqual([
      ['teacher', 'teacher model 1 (name withheld)', 'aa', undefined, true],
      ['distill-transfer', 'passages sampled from the unigram distribution of the general corpus (seed 43)', undefined, undefined, false],
      ['distill-transfer', 'transfer text 1 (name withheld)', 'bb', undefined, false],
      ['distill-private', 'private labelled data 1 (name withheld)', 'cc', 0.5, true],
    ]);
    expect(withheld.vocabulary).toMatchObject({ source: 'the teacher model (name withheld)', from: { source: 'the vocabulary file (name withheld)' } });
    const m = withheldMetrics(metrics) as typeof metrics & { names_withheld: string };
    expect(m.names_withheld).toBe(NAMES_WITHHELD);
    expect(m.settings).toEqual({ task: 'ner', alpha: 0.5, seed: 42, transfer: 'random,your text (name withheld)' });
    expect(m.teacher).toEqual({ name: 'teacher model (name withheld)', architecture: 'bert 2L-128' });
    expect(m.transfer.sources.map((s) => [s.name, s.sentences])).toEqual([['random', 32], ['transfer text 1 (name withheld)', 2]]);
    expect(m.lineage).toEqual(withheld);
    expect(withheldModelCard('ner', withheld, m, false)).toContain("Distilled from a teacher model's outputs on 34 transfer sentences in 1 step, with private labelled batches on a fraction 0.5 of the steps.");
  });

  it('keeps the random initialisation of the workbench and of benchtop init-model, which name nothing of the user’s', () => {
    const init = (source: string): LineageRecord => lineageRecord([{ kind: 'init', source, containsPhi: false, gradients: true }]);
    for (const source of ['random initialisation (small-2L-128)', 'random initialisation (bert small-2L-128, seed 42)', 'random initialisation (distilbert tiny-4L-312, seed 7)'])
      expect(withheldRecord(init(source)).entries[0]?.source).toBe(source);
    // Anything else in the brackets may be a name: a folder called "smith_john, seed 1" is not kept.
    expect(withheldRecord(init('random initialisation (smith john, seed 1)')).entries[0]?.source).toBe('starting weights 1 (name withheld)');
  });

  it('leaves out what a folder’s own record holds that is no entry, and names an unknown kind a source', () => {
    const odd = { phi_status: 'unknown', statement: '', entries: [null, 'x', { kind: 'toString', source: 7, containsPhi: false, gradients: true }] } as unknown as Parameters<typeof withheldRecord>[0];
    expect(withheldRecord(odd).entries).toEqual([{ kind: 'toString', source: 'source 1 (name withheld)', containsPhi: false, gradients: true }]);
  });
});
