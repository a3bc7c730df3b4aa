// Prediction over one long document keeps its results while its memory use is cut: the entities
// (spans, types, scores) predicted over a ~200 KB note and the tokens of its text are compared
// with digests recorded from the code before the change (tokenizing the whole text at once,
// keeping every window's ids and logits). The model is a deterministic function of the window's ids and
// positions, so the digest tests the data path (tokens, sentences, windows, batches, decoding),
// not onnxruntime's floating point on this machine.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import type { HostTensor } from '../onnx/ir.ts';
import type { Batch } from '../train/trainer.ts';
import { QUIET } from './events.ts';
import { predictEntities } from './ner-task.ts';
import { bertTokenizer, DATA, HAS_DATA } from './test-helpers.ts';

const LABELS = ['O', 'B-Disease', 'I-Disease', 'B-Chemical', 'I-Chemical'];

/** Logits [B, T, L] from each id, the id before it and its position: windows see their context. */
function fakeModel(batch: Omit<Batch, 'labels'>): Promise<HostTensor> {
  const { batchSize: B, seqLen: T } = batch;
  const L = LABELS.length;
  const data = new Float32Array(B * T * L);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++) {
      const id = Number(batch.inputIds[b * T + t]);
      const prev = t > 0 ? Number(batch.inputIds[b * T + t - 1]) : 0;
      for (let l = 0; l < L; l++) data[(b * T + t) * L + l] = ((id * 31 + prev * 17 + t * 7 + l * 13) % 97) / 10;
    }
  return Promise.resolve({ dtype: 'float32', dims: [B, T, L], data });
}

/** ~200 KB of abstracts with a few characters the tokenizer treats specially, as one note. */
function longNote(): string {
  const abstracts = readFileSync(path.join(DATA, 'text', 'biomed', 'ncbi_disease_train_dev_abstracts.txt'), 'utf8').slice(0, 200_000);
  // No-break and ideographic spaces, a control character inside a word, accents, an astral
  // character, CRLF and a 3,000-character run without a space (one word over many windows).
  const odd = ['\u00a0', '\u3000', 'ca\u0007ncer', 'Me\u0301nie\u0300re', '🧬', '\r\n', 'x'.repeat(3000), '\u200b'];
  let k = 0;
  return abstracts.replace(/ (?=the )/g, () => ` ${odd[k++ % odd.length] ?? ''} `);
}

const sha = (v: unknown): string => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

describe.skipIf(!HAS_DATA)('prediction over one long document', () => {
  it('gives the tokens and entities recorded before the memory cuts', async () => {
    const tok = bertTokenizer();
    const text = longNote();
    expect(text.length).toBeGreaterThan(200_000);
    const t = tok.tokenize(text);
    expect(t.ids.length).toBe(48_045);
    expect(sha([t.tokens, t.ids, t.offsets, t.wordIds])).toBe('34bf68535395de46');
    const docs: Document[] = [
      { id: 'long', text, entities: [], relations: [] },
      { id: 'short', text: 'Familial breast cancer and cisplatin nephrotoxicity.', entities: [], relations: [] },
    ];
    const view = { labels: LABELS, tokenizer: tok, maxLength: 64, stride: 15 };
    const pred = await predictEntities(docs, view, fakeModel, { batchSize: 8 }, QUIET);
    expect(pred.words).toBe(36_704);
    expect(pred.entities.map((es) => es.length)).toEqual([20_718, 5]);
    expect(sha(pred.entities)).toBe('e91db6ec98080073');
  });
});
