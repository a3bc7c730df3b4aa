// RE data: masked GAD/ChemProt TSVs (with and without header, malformed lines named by line),
// detection, candidate pairs from PubTator documents with concept-level (CID) gold relations,
// @TYPE$ masking, and marker-centred truncation of long sentences.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDocuments, loadReInput } from './data-load.ts';
import {
  documentCandidates,
  encodeRe,
  guessNegativeLabel,
  looksLikeReTsv,
  markerTypes,
  pairsFromDocuments,
  pairsFromExamples,
  readReTsv,
} from './re-data.ts';
import { bertTokenizer, DATA, HAS_DATA, tempDir, removeTempDirs } from './test-helpers.ts';

afterAll(removeTempDirs);

describe.skipIf(!HAS_DATA)('RE data', () => {
  it('reads GAD and ChemProt TSVs, with or without header', () => {
    const gadTrain = readReTsv(
      readFileSync(path.join(DATA, 're', 'gad-fold1', 'train.tsv'), 'utf8'),
      'train.tsv',
    );
    expect(gadTrain.issues).toEqual([]);
    expect(gadTrain.examples).toHaveLength(4796);
    expect(new Set(gadTrain.examples.map((e) => e.label))).toEqual(new Set(['0', '1']));
    const gadTest = readReTsv(
      readFileSync(path.join(DATA, 're', 'gad-fold1', 'test.tsv'), 'utf8'),
      'test.tsv',
    );
    expect(gadTest.examples).toHaveLength(534);
    expect(gadTest.examples[0]).toMatchObject({ line: 2, label: '1' });
    expect(gadTest.examples[0]?.text).toMatch(/^These results suggest .* @GENE\$ .* @DISEASE\$\.$/);
    expect(pairsFromExamples(gadTrain.examples)).toEqual(
      expect.arrayContaining([['GENE', 'DISEASE']]),
    );
    const chem = readReTsv(
      readFileSync(path.join(DATA, 're', 'chemprot', 'dev.tsv'), 'utf8'),
      'dev.tsv',
    );
    const labels = [...new Set(chem.examples.map((e) => e.label ?? ''))].sort();
    expect(labels).toEqual(['CPR:3', 'CPR:4', 'CPR:5', 'CPR:6', 'CPR:9', 'False']);
    expect(guessNegativeLabel(labels)).toBe('False');
    expect(guessNegativeLabel(['0', '1'])).toBe('0');
    expect(guessNegativeLabel(['a', 'b'])).toBeUndefined();
  });

  it('names malformed lines and keeps the rest', async () => {
    const dir = tempDir('re-bad');
    const file = path.join(dir, 'bad.tsv');
    writeFileSync(
      file,
      'index\tsentence\tlabel\n0\t@GENE$ causes @DISEASE$.\t1\n1\tno tabs here\n2\t\t0\n3\t@GENE$ and @DISEASE$ differ.\t0\n',
    );
    const input = await loadReInput(file);
    expect(input.kind).toBe('masked');
    if (input.kind !== 'masked') return;
    expect(input.examples.map((e) => e.line)).toEqual([2, 5]);
    expect(input.issues.map((i) => `${i.file}:${i.line}: ${i.message}`)).toEqual([
      `${file}:3: expected 3 tab-separated columns, got 2; line skipped`,
      `${file}:4: empty sentence; line skipped`,
    ]);
    expect(
      looksLikeReTsv(
        readFileSync(path.join(DATA, 'ner', 'ncbi-disease', 'devel.tsv'), 'utf8').slice(0, 4000),
      ),
    ).toBe(false);
  });

  it('builds masked candidate pairs from PubTator documents with CID relations', async () => {
    const { documents } = await loadDocuments(
      path.join(DATA, 'documents', 'pubtator-bc5cdr', 'CDR_DevelopmentSet.PubTator.txt'),
    );
    const docs = documents.slice(0, 40);
    const pairs = pairsFromDocuments(docs);
    expect(pairs).toEqual([['CHEMICAL', 'DISEASE']]);
    const cands = documentCandidates(docs, pairs, 'false', { withGold: true });
    const positives = cands.filter((c) => c.label === 'CID');
    expect(positives.length).toBeGreaterThan(10);
    expect(cands.length).toBeGreaterThan(positives.length * 2);
    for (const c of cands) expect(markerTypes(c.text).sort()).toEqual(['CHEMICAL', 'DISEASE']);
    for (const c of positives) {
      const doc = docs[c.pair?.doc ?? -1];
      expect(doc?.entities.find((e) => e.id === c.pair?.arg1)?.type).toBe('Chemical');
      expect(doc?.entities.find((e) => e.id === c.pair?.arg2)?.type).toBe('Disease');
    }
  });

  it('keeps both markers when a long sentence is truncated', () => {
    const tok = bertTokenizer();
    const filler = 'the cohort was followed for several years without events '.repeat(12);
    const text = `${filler}and @GENE$ variants were linked to @DISEASE$ risk ${filler}`;
    const ids = encodeRe(tok, text, 32);
    expect(ids).toHaveLength(32);
    const decoded = tok.decode(ids, true);
    expect(decoded).toContain('@ gene $');
    expect(decoded).toContain('@ disease $');
  });

  it('keeps both markers when they are further apart than the window', () => {
    // The window used to start at the first marker and cut off the second: ~0.3% of ChemProt's
    // training sentences at max length 128 (5% at 64) showed the model one entity only.
    const tok = bertTokenizer();
    const filler = 'the cohort was followed for several years without events '.repeat(12);
    const text = `Early @GENE$ variants ${filler} were linked to @DISEASE$ risk in the end.`;
    const ids = encodeRe(tok, text, 32);
    expect(ids).toHaveLength(32);
    const pieces = ids.map((id) => tok.idToToken(id));
    expect(pieces.slice(0, 4)).toEqual(['[CLS]', '@', 'gene', '$']);
    expect(pieces.slice(-4)).toEqual(['@', 'disease', '$', '[SEP]']);
    // The first half follows the first marker; the second leads up to the second marker.
    expect(tok.decode(ids, true)).toMatch(/^@ gene \$ variants the cohort .* were linked to @ disease \$$/);
    // No room for both: the window starts at the first marker, as before.
    expect(tok.decode(encodeRe(tok, text, 6), true)).toBe('@ gene $ variants');
    // One marker, or none: the window is as before.
    expect(encodeRe(tok, `@GENE$ ${filler}`, 16).map((id) => tok.idToToken(id)).slice(0, 4)).toEqual(['[CLS]', '@', 'gene', '$']);
    expect(encodeRe(tok, filler, 16)).toEqual([tok.clsId, ...tok.tokenize(filler).ids.slice(0, 14), tok.sepId]);
  });
});
