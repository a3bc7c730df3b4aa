// CoNLL: NCBI-disease and BC5CDR test splits (sentence and entity counts, byte-exact round
// trip of tokens/tags), repairs of invalid I- tags, BIOES, multi-column and -DOCSTART- input.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sentenceRanges as taskSentences } from './sentence-ranges.ts';
import { exportConll, importConll } from './conll.ts';
import { writeExport } from './export-stream.ts';
import { importPubtator } from './pubtator.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document, Entity } from './types.ts';

describe.skipIf(!HAS_DATA)('CoNLL on real NER splits', () => {
  for (const [rel, sentences] of [['ner/ncbi-disease/test.tsv', 940], ['ner/bc5cdr/test.tsv', 4797]] as const) {
    it(`${rel}: ${sentences} sentences, one entity per B- tag, exact round trip`, () => {
      const content = readFileSync(join(DATA_DIR, rel), 'utf8');
      const { documents, issues } = importConll(content, rel);
      expect(issues).toEqual([]);
      expect(documents).toHaveLength(1);
      const doc = documents[0] as Document;
      expect(doc.id).toBe('test');
      expect(doc.passages).toHaveLength(sentences);
      const bTags = content.split('\n').filter((l) => /\tB-/.test(l)).length;
      expect(doc.entities).toHaveLength(bTags);
      for (const e of doc.entities) expect(e.text).toBe(doc.text.slice(e.spans[0]?.start, e.spans[0]?.end));
      const lines = content.split('\n').filter((l) => l !== '');
      expect(doc.text.replace(/[ \n]/g, '|')).toBe(lines.map((l) => l.split('\t')[0]).join('|'));
      // Written to a file named like its id (a lone document has no -DOCSTART- line).
      const out = exportConll(documents, { name: 'test.tsv' });
      expect(out.issues).toEqual([]);
      expect(out.files[0]?.content).toBe(content);
    });
  }
});

describe('CoNLL sentences of documents without sentence passages', () => {
  const title = 'Naloxone reverses clonidine hypotension in rats.';
  const abstract = 'Clonidine lowered blood pressure. Naloxone (0.4 mg/kg) reversed it in rats and mice! Dr. Smith agreed.';
  const text = `${title}\n${abstract}`;
  const at = (w: string, type: string, id: string, from = 0): Entity => {
    const start = text.indexOf(w, from);
    return { id, type, spans: [{ start, end: start + w.length }], text: w };
  };
  const doc: Document = {
    id: 'p',
    text,
    entities: [at('Naloxone', 'Chemical', 'a'), at('hypotension', 'Disease', 'b'), at('Clonidine', 'Chemical', 'c'), at('Naloxone', 'Chemical', 'd', 1), at('rats', 'Species', 'e', title.length)],
    relations: [],
    passages: [{ type: 'title', start: 0, end: title.length }, { type: 'abstract', start: title.length + 1, end: text.length }],
  };
  const blocks = (content: string): string[] => content.trim().split('\n\n').map((b) => b.split('\n').map((l) => l.split('\t')[0]).join(' '));

  it('writes each sentence the NER and RE tasks read as a block, and reads back with the same offsets', () => {
    const out = exportConll([doc], { name: 'p.conll' });
    const content = out.files[0]?.content ?? '';
    expect(blocks(content)).toEqual(taskSentences(doc).map((r) => text.slice(r.start, r.end)));
    expect(blocks(content)).toEqual([title, 'Clonidine lowered blood pressure.', 'Naloxone (0.4 mg/kg) reversed it in rats and mice!', 'Dr. Smith agreed.']);
    expect(out.issues.map((i) => i.message)).toEqual([
      '1 document had passage boundaries dropped (read back as sentences)',
      '1 document had sentences that share a line read back on lines of its own (character offsets kept)',
    ]);
    const back = importConll(content, 'p.conll');
    expect(back.issues).toEqual([]);
    const got = back.documents[0] as Document;
    expect(got.text).toBe(text.replace(/([.!]) (?=[CND])/g, '$1\n'));
    expect(got.entities.map((e) => [e.type, e.spans])).toEqual(doc.entities.map((e) => [e.type, e.spans]));
    // Written again, the same file (its sentences are passages now).
    expect(exportConll(back.documents, { name: 'p.conll' })).toEqual({ files: out.files, issues: [] });
  });

  it('keeps an entity the sentence splitter would cut whole, in one block; one crossing a line is dropped, as before', () => {
    const t = 'Given vitamin C. Then fever fell.\nWe saw E. coli. Then\nit grew.';
    const ent = (w: string, id: string): Entity => ({ id, type: 'X', spans: [{ start: t.indexOf(w), end: t.indexOf(w) + w.length }], text: w });
    const d: Document = { id: 'v', text: t, entities: [ent('vitamin C. Then', 'a'), ent('Then\nit', 'b')], relations: [] };
    const out = exportConll([d], { name: 'v.conll' });
    const content = out.files[0]?.content ?? '';
    expect(blocks(content)).toEqual(['Given vitamin C. Then fever fell.', 'We saw E. coli.', 'Then', 'it grew.']);
    expect(out.issues.map((i) => i.message)).toEqual([
      '1 entity crossing a sentence boundary dropped',
      '1 document had sentences that share a line read back on lines of its own (character offsets kept)',
    ]);
    expect(importConll(content, 'v.conll').documents[0]?.entities.map((e) => e.text)).toEqual(['vitamin C. Then']);
  });

  it('never cuts a word where a sentence starts without whitespace before it: the text reads back the same length (it was a character longer per cut)', () => {
    // MTSamples' flattened line breaks: the splitter starts a sentence right after ".," and ":,".
    const t = 'IMPRESSION:,1. Mild pericardial effusion.,2. Trace mitral regurgitation. No thrombus seen.';
    const start = t.indexOf('pericardial');
    const d: Document = { id: 'n', text: t, entities: [{ id: 'T1', type: 'Disease', spans: [{ start, end: start + 11 }], text: 'pericardial' }], relations: [] };
    expect(taskSentences(d).map((r) => t.slice(r.start, r.end))).toEqual(['IMPRESSION:,', '1. Mild pericardial effusion.,', '2. Trace mitral regurgitation.', 'No thrombus seen.']);
    const out = exportConll([d], { name: 'n.conll' });
    const content = out.files[0]?.content ?? '';
    expect(blocks(content)).toEqual(['IMPRESSION:,1. Mild pericardial effusion.,2. Trace mitral regurgitation.', 'No thrombus seen.']);
    expect(out.issues.map((i) => i.message)).toEqual(['1 document had sentences that share a line read back on lines of its own (character offsets kept)']);
    const got = importConll(content, 'n.conll').documents[0] as Document;
    expect(got.text).toBe(t.replace('. No', '.\nNo'));
    expect(got.entities.map((e) => [e.text, e.spans])).toEqual([['pericardial', d.entities[0]?.spans]]);
  });

  it('writes sentence passages that meet mid-word as one block, and says so (a line break there added a character)', () => {
    const t = 'Fever fell.Then it rose again. Aspirin helped.';
    const at = (w: string): number => t.indexOf(w);
    const d: Document = {
      id: 's',
      text: t,
      entities: [{ id: 'T1', type: 'Disease', spans: [{ start: at('Fever'), end: at('Fever') + 5 }], text: 'Fever' }],
      relations: [],
      passages: [{ type: 'sentence', start: 0, end: at('Then') }, { type: 'sentence', start: at('Then'), end: at(' Aspirin') }, { type: 'sentence', start: at('Aspirin'), end: t.length }],
    };
    const out = exportConll([d], { name: 's.conll' });
    expect(blocks(out.files[0]?.content ?? '')).toEqual(['Fever fell.Then it rose again.', 'Aspirin helped.']);
    expect(out.issues.map((i) => i.message)).toEqual([
      '1 document had sentences that meet mid-word written as one (read back as one sentence; text kept)',
      '1 document had sentences that share a line read back on lines of its own (character offsets kept)',
    ]);
    const got = importConll(out.files[0]?.content ?? '', 's.conll').documents[0] as Document;
    expect(got.text).toBe('Fever fell.Then it rose again.\nAspirin helped.');
    expect(got.entities.map((e) => e.spans)).toEqual([[{ start: 0, end: 5 }]]);
  });

  it.skipIf(!HAS_DATA)('streamed a batch at a time, writes what the whole-file export does (BC5CDR abstracts)', async () => {
    const pubtator = readFileSync(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt'), 'utf8');
    const docs = importPubtator(pubtator, 'cdr').documents.slice(0, 20);
    const whole = exportConll(docs, { name: 'cdr.conll' });
    expect(blocks(whole.files[0]?.content ?? '').length).toBeGreaterThan(docs.length * 5);
    const dir = mkdtempSync(join(tmpdir(), 'benchtop-conll-stream-'));
    try {
      const out = join(dir, 'cdr.conll');
      const res = await writeExport([docs.slice(0, 7), docs.slice(7)], 'conll', out, { documentCount: docs.length });
      expect(readFileSync(out, 'utf8')).toBe(whole.files[0]?.content);
      expect(res.issues).toEqual(whole.issues);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CoNLL parsing', () => {
  it('repairs I- after O and reports bad lines, importing the rest', () => {
    const input = ['The\tO', 'heart\tI-Disease', 'attack\tI-Disease', 'was\tO', 'bad\tX-Thing', 'lonely', 'aspirin\tB-Chemical', 'helped\tI-Disease', '', 'Next\tO'].join('\n');
    const { documents, issues } = importConll(input, 'r.tsv');
    expect(issues.map((i) => [i.severity, i.line, i.message])).toEqual([
      ['warning', 2, '2 I-/E- tags that did not continue an entity were repaired to B-/S-'],
      ['error', 5, 'invalid tag; token kept as O'],
      ['error', 6, 'line without a tag; token kept as O'],
    ]);
    const doc = documents[0] as Document;
    expect(doc.text).toBe('The heart attack was bad lonely aspirin helped\nNext');
    expect(doc.entities.map((e) => [e.type, e.text])).toEqual([
      ['Disease', 'heart attack'],
      ['Chemical', 'aspirin'],
      ['Disease', 'helped'],
    ]);
  });

  it('reads CoNLL-U: comments skipped, the word (FORM) as token, the tag last or as NER= in MISC (its text was "# # 1 2 3")', () => {
    const ud = ['# sent_id = 1', '# text = Fever noted.', '1\tFever\tfever\tNOUN\t_\t_\t2\tnsubj\t_\tNER=B-Disease', '2-3\tnoted.\t_\t_\t_\t_\t_\t_\t_\t_'];
    ud.push('2\tnoted\tnote\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No', '3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\tO', '', '#\tO', 'Rash\tB-Disease');
    const res = importConll(ud.join('\n'), 'notes.conllu');
    expect(res.issues).toEqual([]);
    expect(res.documents[0]?.text).toBe('Fever noted .\n# Rash');
    expect(res.documents[0]?.entities.map((e) => [e.type, e.text])).toEqual([['Disease', 'Fever'], ['Disease', 'Rash']]);
  });

  it('reads lines with trailing tabs, taking the last non-empty column as the tag (all were invalid)', () => {
    const { documents, issues } = importConll('Aspirin\tNN\tB-Chemical\t\ncauses\tVB\tO\t\t\nulcers\tB-Disease \t\n', 'tabs.tsv');
    expect(issues).toEqual([]);
    expect(documents[0]?.entities.map((e) => [e.type, e.text])).toEqual([['Chemical', 'Aspirin'], ['Disease', 'ulcers']]);
  });

  it('reads BIOES, multi-column space-separated lines and -DOCSTART- documents', () => {
    const input = [
      '-DOCSTART- -X- -X- O',
      '',
      'Acute NN B-NP B-Disease',
      'renal JJ I-NP I-Disease',
      'failure NN I-NP E-Disease',
      'after IN B-PP O',
      'cisplatin NN B-NP S-Chemical',
      '',
      '-DOCSTART- (doc2)',
      '',
      'Nothing NN B-NP O',
    ].join('\r\n');
    const { documents, issues } = importConll(input, 'x.conll');
    expect(issues).toEqual([]);
    expect(documents.map((d) => d.id)).toEqual(['x', 'doc2']);
    expect(documents[0]?.text).toBe('Acute renal failure after cisplatin');
    expect(documents[0]?.entities.map((e) => [e.type, e.text, e.spans])).toEqual([
      ['Disease', 'Acute renal failure', [{ start: 0, end: 19 }]],
      ['Chemical', 'cisplatin', [{ start: 26, end: 35 }]],
    ]);
    const bioes = exportConll(documents, { scheme: 'bioes' }).files[0]?.content ?? '';
    expect(bioes.split('\n').slice(0, 6)).toEqual(['-DOCSTART- (x)', '', 'Acute\tB-Disease', 'renal\tI-Disease', 'failure\tE-Disease', 'after\tO']);
    expect(importConll(bioes, 'y.conll').documents).toEqual(documents);
  });

  it('starts an entity whose span begins or ends with whitespace with B- (S- in BIOES), not joined to the one before', () => {
    const doc: Document = {
      id: 'w',
      text: 'aspirin  tablets daily',
      entities: [
        { id: 'a', type: 'Drug', spans: [{ start: 0, end: 7 }], text: 'aspirin' },
        { id: 'b', type: 'Drug', spans: [{ start: 7, end: 17 }], text: '  tablets ' },
      ],
      relations: [],
    };
    expect(exportConll([doc]).files[0]?.content).toBe('aspirin\tB-Drug\ntablets\tB-Drug\ndaily\tO\n\n');
    expect(exportConll([doc], { scheme: 'bioes' }).files[0]?.content).toBe('aspirin\tS-Drug\ntablets\tS-Drug\ndaily\tO\n\n');
    const back = importConll(exportConll([doc]).files[0]?.content ?? '', 'w.conll');
    expect(back.issues).toEqual([]);
    expect(back.documents[0]?.entities.map((e) => e.text)).toEqual(['aspirin', 'tablets']);
  });

  it('says that documents empty or only whitespace are skipped (they do not read back)', () => {
    const docs: Document[] = ['A b', '', ' \r\n\t'].map((text, i) => ({ id: `d${i}`, text, entities: [], relations: [] }));
    const out = exportConll(docs);
    expect(out.issues.map((i) => i.message)).toEqual(['2 documents without tokens (empty or only whitespace) skipped']);
    expect(importConll(out.files[0]?.content ?? '', 'x.conll').documents.map((d) => d.id)).toEqual(['d0']);
    // Nor is a -DOCSTART- line written for them: written again, the file is the same.
    expect(out.files[0]?.content).toBe('-DOCSTART- (d0)\n\nA\tO\nb\tO\n\n');
  });

  it('says that a document holding the word -DOCSTART- reads back split there', () => {
    const doc: Document = { id: 'd', text: 'See\n-DOCSTART- here', entities: [], relations: [] };
    const out = exportConll([doc, { ...doc, id: 'e', text: 'Fine' }]);
    expect(out.issues.map((i) => i.message)).toEqual(['1 document held the word -DOCSTART-, which reads back as the start of another document']);
    expect(importConll(out.files[0]?.content ?? '', 'x.conll').documents.map((d) => d.text)).toEqual(['See', 'here', 'Fine']);
  });

  it('reads back document ids and entity types holding U+2028 (not a line end)', () => {
    const doc = (id: string): Document => ({ id, text: 'Aspirin', entities: [{ id: 'a', type: 'Drug\u2028name', spans: [{ start: 0, end: 7 }], text: 'Aspirin' }], relations: [] });
    const back = importConll(exportConll([doc('n\u20281'), doc('n2')]).files[0]?.content ?? '', 'x.conll');
    expect(back.issues).toEqual([]);
    expect(back.documents.map((d) => [d.id, d.entities[0]?.type])).toEqual([['n\u20281', 'Drug\u2028name'], ['n2', 'Drug\u2028name']]);
  });

  it('writes a document id with line breaks on one line, and says so', () => {
    const doc = (id: string): Document => ({ id, text: 'Aspirin', entities: [], relations: [] });
    const out = exportConll([doc('ward\r\n3'), doc('n2')]);
    expect(out.issues.map((i) => i.message)).toEqual(['1 document id with line breaks changed']);
    const back = importConll(out.files[0]?.content ?? '', 'x.conll');
    expect(back.issues).toEqual([]);
    expect(back.documents.map((d) => [d.id, d.text])).toEqual([['ward__3', 'Aspirin'], ['n2', 'Aspirin']]);
  });

  it("says that a lone document's id is not written unless the file is named like it", () => {
    const doc: Document = { id: 'note-7', text: 'Aspirin', entities: [], relations: [] };
    expect(exportConll([doc], { name: 'note-7.conll' }).issues).toEqual([]);
    const out = exportConll([doc], { name: 'out.conll' });
    expect(out.issues.map((i) => i.message)).toEqual(['1 document id not written (a lone document has no -DOCSTART- line: it reads back named after the file)']);
    expect(importConll(out.files[0]?.content ?? '', 'out.conll').documents[0]?.id).toBe('out');
  });

  it('says that passages other than sentences (title, abstract) are dropped', () => {
    const doc: Document = { id: 'd', text: 'Title\nBody text', entities: [], relations: [], passages: [{ type: 'title', start: 0, end: 5 }, { type: 'abstract', start: 6, end: 15 }] };
    const out = exportConll([doc], { name: 'd.conll' });
    expect(out.issues.map((i) => i.message)).toEqual(['1 document had passage boundaries dropped (read back as sentences)']);
    expect(importConll(out.files[0]?.content ?? '', 'd.conll').documents[0]?.passages?.map((p) => p.type)).toEqual(['sentence', 'sentence']);
    const sentences = { ...doc, passages: [{ type: 'sentence', start: 0, end: 5 }, { type: 'sentence', start: 6, end: 15 }] };
    expect(exportConll([sentences], { name: 'd.conll' }).issues).toEqual([]);
  });

  it('writes entity types with whitespace a tag cannot hold with _, and says so', () => {
    const entity = (type: string): Document['entities'][number] => ({ id: 'a', type, spans: [{ start: 0, end: 7 }], text: 'Aspirin' });
    const doc = (type: string): Document => ({ id: 'd', text: 'Aspirin', entities: [entity(type)], relations: [] });
    const read = (out: { files: { content: string }[] }): string[] =>
      importConll(out.files[0]?.content ?? '', 'x.conll').documents.flatMap((d) => d.entities.map((e) => e.type));
    const tabbed = exportConll([doc('Drug\tname'), doc(' Drug '), doc('Drug name')]);
    expect(tabbed.issues.map((i) => i.message)).toEqual(['2 entities had whitespace in their type replaced by _']);
    expect(read(tabbed)).toEqual(['Drug_name', '_Drug_', 'Drug name']);
    const spaced = exportConll([doc('Drug name')], { separator: ' ', name: 'd.conll' });
    expect(spaced.issues.map((i) => i.message)).toEqual(['1 entity had whitespace in its type replaced by _']);
    expect(read(spaced)).toEqual(['Drug_name']);
  });

  it('exports other documents with token splits at entity boundaries and reports losses', () => {
    const doc: Document = {
      id: 'p',
      text: 'Naloxone reverses  clonidine-induced hypotension.\nSecond line.',
      entities: [
        { id: 'a', type: 'Chemical', spans: [{ start: 0, end: 8 }], text: 'Naloxone', normIds: ['D009270'] },
        { id: 'b', type: 'Chemical', spans: [{ start: 19, end: 28 }], text: 'clonidine' },
        { id: 'c', type: 'Disease', spans: [{ start: 37, end: 48 }], text: 'hypotension' },
        { id: 'd', type: 'Disease', spans: [{ start: 19, end: 48 }], text: 'clonidine-induced hypotension' },
        { id: 'e', type: 'X', spans: [{ start: 0, end: 3 }, { start: 9, end: 12 }], text: 'Nal rev' },
      ],
      relations: [{ id: 'r', type: 'CID', arg1: 'D1', arg2: 'D2', byConcept: true }],
    };
    const out = exportConll([doc], { splitPunctuation: true, name: 'p.conll' });
    expect(out.files[0]?.content).toBe(
      'Naloxone\tB-Chemical\nreverses\tO\nclonidine\tB-Disease\n-\tI-Disease\ninduced\tI-Disease\nhypotension\tI-Disease\n.\tO\n\nSecond\tO\nline\tO\n.\tO\n\n',
    );
    expect(out.issues.map((i) => i.message).sort()).toEqual([
      '1 discontinuous entity dropped',
      '1 document had entity ids, attributes or scores dropped',
      '1 document had whitespace normalised (character offsets change)',
      '1 relation dropped',
      '2 overlapping or nested entities dropped',
    ]);
  });
});
