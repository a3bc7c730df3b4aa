// Candidate pairs of relation extraction at scale: a note without sentence breaks (a list of
// hundreds of entities on one line) makes thousands of candidate pairs, and encoding them all
// ran before Cancel was looked at. Encoding now stops at a cancel, within a bounded time.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document, Entity } from '../formats/types.ts';
import { CancelledError } from './batching.ts';
import type { TaskContext } from './events.ts';
import { evaluate } from './predict-task.ts';
import { documentCandidates } from './re-data.ts';
import { classifyExamples, predictRelations, type ReModelView } from './re-task.ts';
import { bertTokenizer, randomTaskModel, removeTempDirs, tempDir, VOCAB } from './test-helpers.ts';
import { train } from './train-task.ts';

afterAll(removeTempDirs);

/** One "sentence" listing `n` entities, Chemical and Disease in turn (a pasted medication list). */
function listDocument(n: number, id = 'list'): Document {
  const words = ['aspirin', 'hypertension', 'metformin', 'diabetes', 'lisinopril', 'asthma'];
  let text = 'Medications: ';
  const entities: Entity[] = [];
  for (let i = 0; i < n; i++) {
    const w = words[i % words.length] as string;
    const start = text.length;
    text += `${w} 10 mg, `;
    entities.push({ id: `T${i}`, type: i % 2 === 0 ? 'Chemical' : 'Disease', spans: [{ start, end: start + w.length }], text: w });
  }
  return { id, text: `${text}end.`, entities, relations: [] };
}

const PAIRS: [string, string][] = [['CHEMICAL', 'DISEASE']];

/** A context cancelled `ms` after the first look at it (a timer: only fires if encoding yields). */
function cancelAfter(ms: number): TaskContext & { at: () => number } {
  let flag = false;
  let at = 0;
  let armed = false;
  return {
    emit: () => {},
    isCancelled: () => {
      if (!armed) {
        armed = true;
        setTimeout(() => {
          flag = true;
          at = performance.now();
        }, ms);
      }
      return flag;
    },
    at: () => at,
  };
}

describe.skipIf(!existsSync(VOCAB))('cancelling while candidate pairs are encoded', () => {
  const view = (): ReModelView => ({
    labels: ['false', 'CID'],
    tokenizer: bertTokenizer(),
    maxLength: 128,
    negativeLabel: 'false',
    entityPairs: PAIRS,
  });
  // 400 entities: 40,000 candidate pairs, tens of seconds of encoding on one core.
  const big = listDocument(400);
  const never = (): Promise<never> => Promise.reject(new Error('the model should not run'));

  it('classification stops within a bounded time, before the model runs', async () => {
    const cands = documentCandidates([big], PAIRS, 'false', { withGold: false });
    expect(cands.length).toBeGreaterThan(9000);
    const ctx = cancelAfter(150);
    const t0 = performance.now();
    await expect(classifyExamples(cands, view(), never, { batchSize: 32 }, ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(ctx.at()).toBeGreaterThan(0);
    expect(performance.now() - ctx.at()).toBeLessThan(500);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('relation prediction stops too', async () => {
    const ctx = cancelAfter(150);
    await expect(predictRelations([big], [big.entities], view(), never, { batchSize: 32 }, ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(performance.now() - ctx.at()).toBeLessThan(500);
  });

  describe('through evaluate and train', () => {
    const dir = tempDir('re-candidates');
    let model = '';
    beforeAll(() => {
      model = randomTaskModel(path.join(dir, 're'), { task: 're', maxLength: 128, negativeLabel: 'false', entityPairs: PAIRS }, ['false', 'CID']);
    });
    const gold = (): Document => ({ ...big, relations: [{ id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' }] });

    it('evaluate stops with CancelledError, as at a batch', async () => {
      const ctx = cancelAfter(200);
      await expect(evaluate({ task: 're', model, documents: [gold()] }, ctx)).rejects.toBeInstanceOf(CancelledError);
      expect(performance.now() - ctx.at()).toBeLessThan(500);
    }, 30_000);

    it('train returns cancelled, without a checkpoint or a model', async () => {
      const out = path.join(dir, 'trained');
      const ctx = cancelAfter(200);
      const r = await train({ task: 're', out, trainDocuments: [gold()], preset: 'small-2L-128', vocab: VOCAB, maxLength: 128 }, ctx);
      expect(performance.now() - ctx.at()).toBeLessThan(500);
      expect(r).toEqual({ status: 'cancelled', out });
      expect(existsSync(path.join(out, 'config.json'))).toBe(false);
      expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
    }, 30_000);
  });
});
