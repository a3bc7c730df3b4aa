// Every command that writes a model records where its vocab.txt came from, and the chain holds
// from command to command: init-model --vocab (a file built from ward notes) → pretrain --model →
// train --model → distill (the teacher's vocabulary) and distill-general; each card says it in
// one sentence, never with the file's full path; a student given a shipped --vocab is public.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import type { LineageRecord } from './lineage.ts';
import type { VocabularyRecord } from './vocab-origin.ts';

const SHIPPED = path.resolve(import.meta.dirname, '../../resources/models/default-student/vocab.txt');
const { dir, file: corpus } = writeCorpus('vocab-origin-cli', 6);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => path.join(dir, name);
const lineage = (name: string): LineageRecord => JSON.parse(readFileSync(path.join(at(name), 'lineage.json'), 'utf8')) as LineageRecord;

async function run(args: string[]): Promise<void> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const code = await main(args);
    expect(code, err.mock.calls.map((c) => String(c[0])).join('\n')).toBe(0);
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

/** The sources of a record's chain, nearest first. */
function chain(v: VocabularyRecord | undefined): string[] {
  return v === undefined ? [] : [v.source, ...chain(v.from)];
}

describe('the vocabulary record of each command', () => {
  it('follows a ward-notes vocabulary from init-model through pretrain, train, distill and distill-general', async () => {
    const vocab = path.join(dir, 'ward-12-notes-vocab.txt');
    writeFileSync(vocab, readFileSync(writeTinyVocab(dir)));
    const fast = ['--steps', '1', '--batch-size', '2', '--max-length', '24'];
    await run(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--task', 'mlm', '--vocab', vocab, '--out', at('init')]);
    expect(lineage('init')).toMatchObject({ phi_status: 'no-phi', vocabulary: { origin: 'file', shipped: null, source: 'the vocabulary file "ward-12-notes-vocab.txt"' } });

    await run(['pretrain', '--model', at('init'), '--text', corpus, ...fast, '--out', at('mlm')]);
    expect(chain(lineage('mlm').vocabulary)).toEqual(['the base model "init"', 'the vocabulary file "ward-12-notes-vocab.txt"']);
    expect(lineage('mlm').vocabulary?.origin).toBe('file');

    const tsv = at('train.tsv');
    writeFileSync(tsv, 'The\tO\npatient\tO\nhas\tO\nbreast\tB-Disease\ncancer\tI-Disease\n.\tO\n\nColon\tB-Disease\ncancer\tI-Disease\nis\tO\ncommon\tO\n.\tO\n');
    await run(['train', 'ner', '--model', at('mlm'), '--train', tsv, '--batch-size', '2', '--max-steps', '1', '--out', at('ner')]);
    const metrics = JSON.parse(readFileSync(path.join(at('ner'), 'metrics.json'), 'utf8')) as { model: { vocabulary: VocabularyRecord } };
    expect(chain(metrics.model.vocabulary)).toEqual(['the base model "mlm"', 'the base model "init"', 'the vocabulary file "ward-12-notes-vocab.txt"']);
    expect(readFileSync(path.join(at('ner'), 'training_card.md'), 'utf8')).toContain('which took it from the vocabulary file "ward-12-notes-vocab.txt"; it is not a vocabulary Benchtop ships');

    await run(['distill', '--task', 'ner', '--teacher', at('ner'), '--transfer', corpus, '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--out', at('student')]);
    const student = lineage('student');
    expect(chain(student.vocabulary)).toEqual(['the teacher model "ner"', 'the base model "mlm"', 'the base model "init"', 'the vocabulary file "ward-12-notes-vocab.txt"']);
    const card = readFileSync(path.join(at('student'), 'README.md'), 'utf8');
    expect(card).toMatch(/Vocabulary: vocab\.txt \(\d+ tokens, sha256 [0-9a-f]{12}…\) came from the teacher model "ner", which took it from the base model "mlm", .*"ward-12-notes-vocab\.txt"; it is not a vocabulary Benchtop ships/);

    await run(['distill-general', '--teacher', at('mlm'), '--student-preset', 'small-2L-128', '--recipe', 'compactbiobert', '--text', corpus, ...fast, '--out', at('general')]);
    expect(chain(lineage('general').vocabulary)).toEqual(['the teacher model "mlm"', 'the base model "init"', 'the vocabulary file "ward-12-notes-vocab.txt"']);

    // A student given a shipped vocabulary is public whatever its teacher's was.
    await run(['distill', '--task', 'ner', '--teacher', at('ner'), '--transfer', corpus, '--student-preset', 'small-2L-128', '--vocab', SHIPPED, '--steps', '1', '--batch-size', '2', '--out', at('public')]);
    expect(lineage('public').vocabulary).toMatchObject({ origin: 'shipped', source: 'the vocabulary file "vocab.txt"' });
    expect(lineage('public').vocabulary?.shipped).toMatch(/^bert-base-uncased/);
    // (train's metrics.json lists its data files by full path, for the transfer guard.)
    expect(JSON.stringify(metrics.model.vocabulary)).not.toContain(dir);
    for (const name of ['init', 'mlm', 'student', 'general', 'public'])
      for (const f of ['lineage.json', 'metrics.json', 'README.md'].filter((f) => existsSync(path.join(at(name), f))))
        expect(readFileSync(path.join(at(name), f), 'utf8')).not.toContain(dir);
  }, 180_000);
});
