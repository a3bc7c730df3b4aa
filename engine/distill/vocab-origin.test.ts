// Where a model's vocab.txt came from: a shipped vocabulary is known to be public (by its hash,
// whatever the file is called), a file the user names is named by file name only, a vocabulary
// taken from a model carries that model's own record, and one from a model that records nothing
// (or records another vocabulary) is of unknown origin: a caveat on the card, never an error.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatVocab, readVocab } from '../checkpoints/tokenizer-files.ts';
import { lineageRecord, privacySection } from './lineage.ts';
import { folderVocabulary, readVocabularyRecord, shippedVocabularies, vocabularyRecord, vocabularySentence } from './vocab-origin.ts';

const SHIPPED = path.resolve(import.meta.dirname, '../../resources/models/default-student/vocab.txt');
const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-vocab-origin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const privateVocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'smith', 'mrn', '4471', 'ward'];

/** A model folder holding `vocab` and, when given, a lineage.json with `record` fields. */
function folder(name: string, vocab: readonly string[], record?: object): string {
  const d = path.join(dir, name);
  mkdirSync(d);
  writeFileSync(path.join(d, 'vocab.txt'), formatVocab(vocab));
  if (record !== undefined) writeFileSync(path.join(d, 'lineage.json'), JSON.stringify({ phi_status: 'no-phi', statement: '', entries: [], ...record }));
  return d;
}

describe('a model’s vocabulary record', () => {
  it('knows a shipped vocabulary by its content, and names a user’s file by its name only', () => {
    const copy = path.join(dir, 'renamed.txt');
    writeFileSync(copy, readFileSync(SHIPPED, 'utf8').replace(/\n/g, '\r\n')); // another layout, same tokens
    const shipped = vocabularyRecord(readVocab(copy), { file: copy });
    expect(shipped).toMatchObject({ tokens: 30522, origin: 'shipped', source: 'the vocabulary file "renamed.txt"' });
    expect(shipped.shipped).toMatch(/^bert-base-uncased/);
    expect(vocabularySentence(shipped)).toMatch(/^Vocabulary: vocab\.txt \(30,522 tokens, sha256 07eced375cec…\) came from the vocabulary file "renamed\.txt"; it is bert-base-uncased .*, a public vocabulary shipped with Benchtop\.$/);

    const own = path.join(dir, 'smith_john', 'ward-12-vocab.txt');
    mkdirSync(path.dirname(own));
    writeFileSync(own, formatVocab(privateVocab));
    const record = vocabularyRecord(privateVocab, { file: own });
    expect(record).toMatchObject({ tokens: 9, origin: 'file', shipped: null, source: 'the vocabulary file "ward-12-vocab.txt"' });
    expect(JSON.stringify(record)).not.toContain('smith_john'); // never the private path
    expect(vocabularySentence(record)).toMatch(/came from the vocabulary file "ward-12-vocab\.txt"; it is not a vocabulary Benchtop ships, and a vocabulary built from private notes can hold their words/);
  });

  it('carries the record of the model it was taken from, and says when there is none', () => {
    const recorded = folder('teacher', privateVocab, { vocabulary: vocabularyRecord(privateVocab, { file: 'notes-vocab.txt' }) });
    const student = vocabularyRecord(privateVocab, { model: recorded, role: 'teacher model' });
    expect(student).toMatchObject({ source: 'the teacher model "teacher"', origin: 'file', from: { source: 'the vocabulary file "notes-vocab.txt"' } });
    expect(vocabularySentence(student)).toContain('came from the teacher model "teacher", which took it from the vocabulary file "notes-vocab.txt"; it is not a vocabulary Benchtop ships');

    const silent = folder('old-teacher', privateVocab, {}); // a lineage.json from before the field
    const unknown = vocabularyRecord(privateVocab, { model: silent, role: 'teacher model' });
    expect(unknown).toMatchObject({ origin: 'unknown', shipped: null });
    expect(unknown.from).toBeUndefined();
    expect(vocabularySentence(unknown)).toContain('came from the teacher model "old-teacher", which does not record where its vocabulary came from, so its origin is unknown');

    // vocab.txt replaced since the record was written: the record no longer speaks for it.
    const replaced = folder('replaced', [...privateVocab, 'extra'], { vocabulary: vocabularyRecord(privateVocab, { file: 'notes-vocab.txt' }) });
    const other = vocabularyRecord([...privateVocab, 'extra'], { model: replaced, role: 'teacher model' });
    expect(other).toMatchObject({ origin: 'unknown', source: 'the teacher model "replaced", whose record describes another vocabulary' });
    expect(vocabularySentence(other)).toContain('another vocabulary, so its origin is unknown');

    // A model of unknown origin with a shipped vocabulary: public all the same.
    const bert = readVocab(SHIPPED);
    expect(vocabularyRecord(bert, { model: folder('hf-model', bert), role: 'base model' })).toMatchObject({ origin: 'shipped', source: 'the base model "hf-model"' });
  });

  it('counts the tokens a tokenizer adds after a shipped vocab.txt, and does not call it the plain shipped vocabulary', () => {
    const bert = readVocab(SHIPPED);
    const specialTokens = { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' };
    const flags = { special: false, normalized: true, lstrip: false, rstrip: false, singleWord: false };
    // Two words from a note and a marker count; one already in vocab.txt ("heart") and a named special do not.
    const addedTokens = [
      { ...flags, content: 'qzsmithq', id: 30522 }, { ...flags, content: 'mrn4471', id: 30523 }, { ...flags, content: '<e1>', id: 30524, special: true },
      { ...flags, content: 'heart', id: 2540 }, { ...flags, content: '[MASK]', id: 103, special: true },
    ];
    const record = vocabularyRecord(bert, { model: folder('added-words', bert), role: 'base model' }, { specialTokens, addedTokens });
    expect(record).toMatchObject({ origin: 'shipped', added: 3 });
    const sentence = vocabularySentence(record);
    expect(sentence).toContain('a public vocabulary shipped with Benchtop, but the tokenizer adds 3 tokens after it (added tokens, which no record accounts for)');
    expect(sentence).toContain('check them before sharing the model.');
    expect(sentence).not.toContain('qzsmithq');
    // Read back from lineage.json (the card of a model trained from it), and from the folder's own tokenizer files.
    const trained = folder('trained-added', bert, { vocabulary: record });
    expect(readVocabularyRecord(trained)).toEqual(record);
    writeFileSync(path.join(trained, 'tokenizer_config.json'), JSON.stringify({ added_tokens_decoder: { '30522': { content: 'qzsmithq', special: false } } }));
    expect(folderVocabulary(trained)).toMatchObject({ origin: 'shipped', added: 1 });
    expect(vocabularySentence(folderVocabulary(trained))).toContain('but the tokenizer adds 1 token after it');
    // Without added tokens, the record and the sentence are as before.
    const plain = vocabularyRecord(bert, { file: SHIPPED }, { specialTokens, addedTokens: addedTokens.slice(3) });
    expect(plain).not.toHaveProperty('added');
    expect(vocabularySentence(plain)).toMatch(/a public vocabulary shipped with Benchtop\.$/);
    // A vocabulary Benchtop does not ship names them in its caveat too.
    const own = vocabularyRecord(privateVocab, { file: 'notes-vocab.txt' }, { specialTokens, addedTokens: [{ ...flags, content: 'jones', id: 9 }] });
    expect(vocabularySentence(own)).toContain('it is not a vocabulary Benchtop ships (and the tokenizer adds 1 token after it), and a vocabulary built from private notes');
  });

  it('reads an old or damaged record as none, without failing', () => {
    const cases = {
      old: '{"phi_status":"no-phi","statement":"","entries":[]}',
      garbled: '{"phi_status":',
      wrong: JSON.stringify({ phi_status: 'no-phi', vocabulary: { sha256: 'abc', tokens: 3, source: 1 } }),
      deep: JSON.stringify({ vocabulary: Array.from({ length: 20 }).reduce<object | undefined>((from) => ({ sha256: 'a'.repeat(64), tokens: 1, source: 'x', shipped: null, origin: 'file', ...(from && { from }) }), undefined) }),
    };
    for (const [name, text] of Object.entries(cases)) {
      const d = path.join(dir, `record-${name}`);
      mkdirSync(d);
      writeFileSync(path.join(d, 'lineage.json'), text);
      expect(readVocabularyRecord(d)).toBeUndefined();
    }
    // An older model's card states that its record is silent; its vocab.txt is described by hash.
    expect(privacySection(lineageRecord([]))).toContain('Vocabulary: this record does not say where vocab.txt came from, so its origin is unknown');
    expect(folderVocabulary(path.join(dir, 'record-old'))).toBeUndefined(); // no vocab.txt
    expect(folderVocabulary(folder('plain', privateVocab))).toMatchObject({ origin: 'unknown', source: "this model's vocab.txt" });
  });
});

describe('the vocabularies Benchtop ships', () => {
  it('are read from resources/, and a damaged one there is left out instead of failing the run', () => {
    const resources = path.join(dir, 'resources');
    mkdirSync(path.join(resources, 'models', 'broken'), { recursive: true });
    mkdirSync(path.join(resources, 'models', 'extra'), { recursive: true });
    mkdirSync(path.join(resources, 'vocab'), { recursive: true });
    writeFileSync(path.join(resources, 'models', 'broken', 'vocab.txt'), ''); // an empty vocabulary
    writeFileSync(path.join(resources, 'models', 'extra', 'vocab.txt'), formatVocab(privateVocab));
    const names = [...shippedVocabularies(resources).values()];
    expect(names).toEqual([expect.stringMatching(/^bert-base-uncased/) as unknown, 'the vocabulary of the shipped model "extra"']);
    expect(vocabularyRecord(privateVocab, { file: 'x.txt' }, undefined, resources)).toMatchObject({ origin: 'shipped', shipped: 'the vocabulary of the shipped model "extra"' });
  });
});
