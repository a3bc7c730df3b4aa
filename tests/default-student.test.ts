// The default student that ships in resources/models/default-student: it loads like any
// Hugging Face folder, fits the size budget, records a no-PHI lineage and the comparison that
// justified shipping it, and actually learned biomedical language (its masked-LM loss on
// NCBI-disease test abstracts, which it never saw, is far below a random model's).

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHfFolder } from '../engine/checkpoints/hf-folder.ts';
import { CHECKSUM_KEY, parseSafetensors, readSafetensors } from '../engine/checkpoints/safetensors.ts';
import { initWeights } from '../engine/model/init.ts';
import { mlmBlocks } from '../engine/pretrain/mlm-data.ts';
import { mlmEvalLoss } from '../engine/pretrain/pretrain.ts';
import { makeTokenizer } from '../engine/tasks/model-setup.ts';

const DIR = path.resolve(import.meta.dirname, '../resources/models/default-student');
const NCBI_TEST = path.resolve(import.meta.dirname, '../../shared/data/ner/ncbi-disease/test.tsv');

/** NCBI-disease test sentences as plain text, one paragraph per sentence. */
function testText(limit: number): string {
  const sentences: string[] = [];
  let words: string[] = [];
  for (const line of readFileSync(NCBI_TEST, 'utf8').split('\n')) {
    if (line.trim() === '') {
      if (words.length > 0) sentences.push(words.join(' '));
      words = [];
      if (sentences.length >= limit) break;
    } else words.push(line.split('\t')[0] as string);
  }
  return sentences.join('\n\n');
}

describe('the shipped default student', () => {
  const model = loadHfFolder(DIR);

  it('is a masked-LM BERT folder within the 40 MB budget, with a no-PHI lineage and its card', () => {
    expect(model.config.task).toBe('masked-lm');
    expect(model.config.architecture).toBe('bert');
    expect(statSync(path.join(DIR, 'model.safetensors')).size).toBeLessThanOrEqual(40e6);
    const lineage = JSON.parse(readFileSync(path.join(DIR, 'lineage.json'), 'utf8')) as {
      phi_status: string;
      entries: { kind: string; source: string; containsPhi: boolean }[];
    };
    expect(lineage.phi_status).toBe('no-phi');
    expect(lineage.entries.every((e) => e.kind === 'pretrain' && !e.containsPhi)).toBe(true);
    expect(lineage.entries.map((e) => e.source).join(' ')).not.toMatch(/clinical|notes/);
    const metrics = JSON.parse(readFileSync(path.join(DIR, 'metrics.json'), 'utf8')) as {
      steps: number;
      ner_ncbi_test_f1: { pretrained: number; random_init: number };
    };
    expect(metrics.ner_ncbi_test_f1.pretrained - metrics.ner_ncbi_test_f1.random_init).toBeGreaterThanOrEqual(0.02);
    const card = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    for (const part of ['## Recipe', '## Data', 'What pretraining buys', '## Reproduce', 'npm run build:default-student'])
      expect(card).toContain(part);
    expect(card).toContain(metrics.ner_ncbi_test_f1.pretrained.toFixed(4));
  });

  it('carries the checksum of its weights, so a damaged installation is named, not loaded', () => {
    const file = path.join(DIR, 'model.safetensors');
    expect(readSafetensors(file).metadata[CHECKSUM_KEY]).toMatch(/^[0-9a-f]{64}$/);
    const bytes = new Uint8Array(readFileSync(file));
    bytes[bytes.byteLength - 3] = (bytes[bytes.byteLength - 3] as number) ^ 0x40;
    expect(() => parseSafetensors(bytes, file)).toThrow(/model\.safetensors.*SHA-256 checksum/s);
  });

  it('predicts masked words of unseen biomedical text far better than the same model at random', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-student-'));
    const file = path.join(dir, 'ncbi-test.txt');
    writeFileSync(file, testText(120));
    const tok = makeTokenizer(model.vocab, model.tokenizer);
    const blocks = [...mlmBlocks([file], tok, { maxLength: 128, holdoutEvery: 0, part: 'train', shuffleBuffer: 0, seed: 0 })].slice(0, 16);
    expect(blocks.length).toBe(16);
    const trained = await mlmEvalLoss(model.config, model.weights, blocks, tok, { seed: 1 });
    const random = await mlmEvalLoss(model.config, initWeights(model.config, 1), blocks, tok, { seed: 1 });
    // ln(30522) ≈ 10.3 is a uniform guess; the random model sits there.
    expect(random).toBeGreaterThan(10);
    expect(trained, `masked-LM loss ${trained}`).toBeLessThan(7.5);
  });
});
