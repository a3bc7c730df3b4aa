// NER encoding/decoding: first-subword labels, sliding windows where the owning window wins and
// an entity cut by a window border comes back whole with exact offsets, CoNLL data through the
// formats importer round-tripping to F1 = 1, and warnings for untrainable annotations.

import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import { evaluateNer } from '../metrics/ner.ts';
import { IGNORE } from './batching.ts';
import { loadDocuments } from './data-load.ts';
import { buildNerData, decodeNer, entityTypes, iob2Labels, wordSpan } from './ner-data.ts';
import {
  bertTokenizer,
  conllSubset,
  DATA,
  HAS_DATA,
  perfectLogits,
  removeTempDirs,
  tempDir,
} from './test-helpers.ts';

afterAll(removeTempDirs);

const LABELS = iob2Labels(['Disease']);
const INDEX = new Map(LABELS.map((l, i) => [l, i] as const));

function entity(
  text: string,
  start: number,
  end: number,
  type = 'Disease',
  id = `T${start}`,
): Entity {
  return { id, type, spans: [{ start, end }], text: text.slice(start, end) };
}

describe.skipIf(!HAS_DATA)('NER data', () => {
  const tok = bertTokenizer();

  it('labels the first piece of each word and ignores the rest and the specials', () => {
    const text = 'Familial adenomatous polyposis (FAP) is rare.';
    const doc: Document = {
      id: 'd',
      text,
      entities: [entity(text, 0, 30), entity(text, 32, 35)],
      relations: [],
    };
    const data = buildNerData([doc], tok, {
      labelIndex: INDEX,
      maxLength: 64,
      stride: 8,
      source: 't',
    });
    const ex = data.examples[0];
    const tokens = ex?.ids.map((id) => tok.idToToken(id)) ?? [];
    const named = (ex?.labels as number[]).map(
      (l, i) => `${tokens[i]}:${l === IGNORE ? '-' : LABELS[l]}`,
    );
    expect(named).toEqual([
      '[CLS]:-',
      'fa:B-Disease',
      '##mi:-',
      '##lia:-',
      '##l:-',
      'aden:I-Disease',
      '##oma:-',
      '##tou:-',
      '##s:-',
      'poly:I-Disease',
      '##po:-',
      '##sis:-',
      '(:O',
      'fa:B-Disease',
      '##p:-',
      '):O',
      'is:O',
      'rare:O',
      '.:O',
      '[SEP]:-',
    ]);
    expect(data.issues).toEqual([]);
  });

  it('merges an entity cut by a window border; the owning window wins', () => {
    const parts: string[] = [];
    const gold: Entity[] = [];
    let text = '';
    for (let i = 0; i < 60; i++) {
      const filler = ['the patient reported', 'and then', 'with severe', 'followed by'][
        i % 4
      ] as string;
      text += `${filler} `;
      const start = text.length;
      text += i % 3 === 0 ? 'hereditary nonpolyposis colorectal carcinoma' : 'breast cancer';
      gold.push(entity(text, start, text.length, 'Disease', `T${i}`));
      text += ' ';
      parts.push(text);
    }
    const doc: Document = { id: 'long', text: text.trimEnd(), entities: gold, relations: [] };
    const data = buildNerData([doc], tok, {
      labelIndex: INDEX,
      maxLength: 24,
      stride: 8,
      source: 't',
    });
    expect(data.sentences).toHaveLength(1);
    expect(data.windows.length).toBeGreaterThan(10);
    // Perfect predictions on owned pieces, wrong ones (all B-Disease) on context-only pieces.
    const logits = data.examples.map((e, k) => {
      const out = perfectLogits(e, LABELS.length);
      const w = data.windows[k]?.window;
      for (let p = w?.contextStart ?? 0; p < (w?.contextEnd ?? 0); p++) {
        if (p >= (w?.start ?? 0) && p < (w?.end ?? 0)) continue;
        const row = 1 + p - (w?.contextStart ?? 0);
        out.fill(0, row * LABELS.length, (row + 1) * LABELS.length);
        out[row * LABELS.length + 1] = 10;
      }
      return out;
    });
    const spans = decodeNer(data, logits, LABELS)[0] ?? [];
    expect(spans.map(({ type, start, end }) => ({ type, start, end }))).toEqual(
      gold.map((e) => ({ type: 'Disease', start: e.spans[0]?.start, end: e.spans[0]?.end })),
    );
    for (const s of spans)
      expect(doc.text.slice(s.start, s.end)).toMatch(
        /^(breast cancer|hereditary nonpolyposis colorectal carcinoma)$/,
      );
    // At least one entity has its pieces owned by two windows.
    const s0 = data.sentences[0];
    const ownerOf = (p: number): number =>
      data.windows.findIndex(({ window: w }) => p >= w.start && p < w.end);
    const crossing = gold.filter((e) => {
      const pieces = [...(s0?.pieceWord ?? [])]
        .map((w, p) => ({ w, p }))
        .filter(({ w }) => {
          const [a, b] = s0 ? wordSpan(s0, w) : [0, 0];
          return a >= (e.spans[0]?.start ?? 0) && b <= (e.spans[0]?.end ?? 0);
        });
      return new Set(pieces.map(({ p }) => ownerOf(p))).size > 1;
    });
    expect(crossing.length).toBeGreaterThan(0);
  });

  it('reads CoNLL through the formats importer and round-trips gold labels to F1 = 1', async () => {
    const dir = tempDir('ner-conll');
    const file = conllSubset(path.join(DATA, 'ner', 'bc5cdr', 'devel.tsv'), 0, 150, dir, 'dev.tsv');
    const { documents, issues } = await loadDocuments(file);
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    const labels = iob2Labels(entityTypes(documents));
    expect(labels).toEqual(['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease']);
    const data = buildNerData(documents, tok, {
      labelIndex: new Map(labels.map((l, i) => [l, i])),
      maxLength: 32,
      stride: 8,
      source: file,
    });
    expect(data.sentences).toHaveLength(150);
    const pred = decodeNer(
      data,
      data.examples.map((e) => perfectLogits(e, labels.length)),
      labels,
    );
    const ev = evaluateNer(
      data.sentences.map((s) => s.gold),
      pred,
    );
    expect(ev.strict.micro.f1).toBe(1);
    expect(ev.strict.micro.tp).toBeGreaterThan(200);
  });

  it('warns about annotations IOB2 cannot hold', () => {
    const text = 'Lung and breast cancer patients with type 2 diabetes.';
    const disc: Entity = {
      id: 'D',
      type: 'Disease',
      spans: [
        { start: 0, end: 4 },
        { start: 16, end: 22 },
      ],
      text: 'Lung cancer',
    };
    const doc: Document = {
      id: 'w',
      text,
      relations: [],
      entities: [disc, entity(text, 9, 22), entity(text, 16, 22), entity(text, 39, 45)],
    };
    const data = buildNerData([doc], tok, {
      labelIndex: INDEX,
      maxLength: 64,
      stride: 8,
      source: 'x.ann',
    });
    expect(data.issues.map((i) => i.message).join('\n')).toMatch(
      /1 discontinuous[\s\S]*1 overlapping[\s\S]*1 entity boundaries fall inside a word/,
    );
    expect(() =>
      buildNerData([{ ...doc, entities: [entity(text, 0, 4, 'Organ')] }], tok, {
        labelIndex: INDEX,
        maxLength: 64,
        stride: 8,
        source: 'x',
      }),
    ).toThrow(/entity type "Organ" \(document w\) is not among the model's labels/);
  });

  it('leaves out training windows inside one long word, which have no label to learn', () => {
    // A 100-letter DNA sequence is 50 pieces: at max length 8 the windows inside it had every
    // label ignored, and a batch of only those made the loss 0/0 ("training diverged: NaN").
    const seq = 'ACGTTGCAACGTGGCTAGCTAGGATCCATGCATGCAAGCTTGGCACTGGCCGTCGTTTTACAACGTCGTGACTGGGAAAACCCTGGCGTTACCCAAC';
    const text = `The gene ${seq} causes breast cancer`;
    const doc: Document = { id: 'dna', text, relations: [], entities: [entity(text, text.indexOf('breast'), text.length)] };
    const opts = { maxLength: 8, stride: 0, source: 't' };
    const labelled = buildNerData([doc], tok, { ...opts, labelIndex: INDEX });
    const all = buildNerData([doc], tok, opts);
    expect(all.windows.length).toBeGreaterThan(8);
    expect(labelled.windows.length).toBeLessThan(all.windows.length);
    expect(labelled.windows).toHaveLength(labelled.examples.length);
    for (const e of labelled.examples) expect((e.labels as number[]).some((l) => l !== IGNORE)).toBe(true);
    // Every word still takes its tag from a kept window: the entity after the sequence comes back.
    const logits = labelled.examples.map((e) => perfectLogits(e, LABELS.length));
    const spans = decodeNer(labelled, logits, LABELS)[0] ?? [];
    expect(spans.map(({ type, start, end }) => ({ type, start, end }))).toEqual([
      { type: 'Disease', start: text.indexOf('breast'), end: text.length },
    ]);
  });
});
