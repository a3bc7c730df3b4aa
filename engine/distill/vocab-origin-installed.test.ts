// The vocabularies an installation ships are those of its resources/ folder, which a packaged app
// keeps beside app.asar (<process.resourcesPath>/resources), not beside the bundled engine: a
// distillation the app starts records a vocabulary found only there as shipped (public). Resolved
// from the engine's own place, the student's lineage.json and card called it of unknown origin.
// (A workbench training run: engine/api/model-lineage-vocabulary.test.ts.)
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCorpus, writeTinyModel, writeTinyVocab } from '../pretrain/test-corpus.ts';
import type { LineageRecord } from './lineage.ts';
import { distill } from './task-distill.ts';

const { dir, file: corpus } = writeCorpus('vocab-origin-installed', 2);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the vocabularies of the installation', () => {
  it('a student of a teacher whose vocabulary only the packaged resources/ ships records it as shipped', async () => {
    mkdirSync(path.join(dir, 'app.asar'));
    const resourcesDir = path.join(dir, 'resources');
    mkdirSync(path.join(resourcesDir, 'vocab'), { recursive: true });
    const vocab = path.join(resourcesDir, 'vocab', 'vocab.txt');
    copyFileSync(writeTinyVocab(dir), vocab);
    const teacher = writeTinyModel(path.join(dir, 'teacher'), vocab, 'token-classification');
    const out = path.join(dir, 'student');
    const r = await distill({ task: 'ner', teacher, transfer: [corpus], studentPreset: 'small-2L-128', steps: 1, batchSize: 2, maxLength: 24, resourcesDir, out });
    expect(r.status).toBe('completed');
    const record = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as LineageRecord;
    expect(record.vocabulary).toMatchObject({ origin: 'shipped', shipped: 'the vocabulary shipped with Benchtop', source: 'the teacher model "teacher"' });
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toContain('it is the vocabulary shipped with Benchtop, a public vocabulary shipped with Benchtop.');
  });
});
