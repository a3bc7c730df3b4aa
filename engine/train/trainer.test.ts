import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { readSafetensors } from '../checkpoints/safetensors.ts';
import { embeddingWidth, presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { Trainer, type Batch } from './trainer.ts';

function makeBatch(seed: number, B = 4, T = 24, V = 300): Batch {
  const n = B * T;
  return {
    batchSize: B,
    seqLen: T,
    inputIds: BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 131 + seed * 17) % V)),
    attentionMask: BigInt64Array.from({ length: n }, (_, i) => (i % T < T - (i % 3) ? 1n : 0n)),
    labels: BigInt64Array.from({ length: n }, (_, i) => (i % T === 0 ? -100n : BigInt((i + seed) % 3))),
  };
}

describe('Trainer', () => {
  const config = presetConfig('small-2L-128', 'bert', 300, ['O', 'B-X', 'I-X'], 'token-classification');
  const optimizer = { lr: 1e-3, weightDecay: 0.01, maxGradNorm: 1, schedule: { kind: 'linear' as const, warmupSteps: 1, totalSteps: 10 } };

  it('packed AdamW trains as the per-tensor form does: losses, weights and moments (dropout on)', async () => {
    // small-2L-128: every dense tensor is ≤ 2^17 elements, so all but the word table are packed.
    const a = await Trainer.create(config, initWeights(config, 8), { optimizer, seed: 2 });
    const b = await Trainer.create(config, initWeights(config, 8), { optimizer, seed: 2, packOptimizer: false });
    for (let i = 0; i < 4; i++) {
      const [ra, rb] = [await a.trainStep(makeBatch(i)), await b.trainStep(makeBatch(i))];
      expect(ra.loss).toBeCloseTo(rb.loss, 5);
      expect(ra.gradNorm).toBeCloseTo(rb.gradNorm, 4);
    }
    const sa = { ...a.optimizerState(), weights: a.weights() };
    const sb = { ...b.optimizerState(), weights: b.weights() };
    for (const key of ['weights', 'm', 'v'] as const) {
      expect([...sa[key].keys()].sort()).toEqual([...sb[key].keys()].sort());
      for (const [name, t] of sa[key]) {
        const u = sb[key].get(name) as HostTensor;
        expect(t.dims, name).toEqual(u.dims);
        let worst = 0;
        const x = t.data as Float32Array;
        (u.data as Float32Array).forEach((v, i) => (worst = Math.max(worst, Math.abs(v - (x[i] as number)) / Math.max(1e-3, Math.abs(v)))));
        expect(worst, `${key} ${name}`).toBeLessThan(1e-4);
      }
    }
    await a.release();
    await b.release();
  });

  it('steps in place through the C API exactly as through the binding (dropout on)', async () => {
    const a = await Trainer.create(config, initWeights(config, 7), { optimizer, seed: 3 });
    const b = await Trainer.create(config, initWeights(config, 7), { optimizer, seed: 3, inPlace: false });
    expect([a.backend, b.backend]).toEqual(['capi', 'binding']);
    expect(a.fallbackReason).toBeUndefined();
    for (let i = 0; i < 3; i++) expect(await a.trainStep(makeBatch(i))).toEqual(await b.trainStep(makeBatch(i)));
    const sa = { ...a.optimizerState(), weights: a.weights() };
    const sb = { ...b.optimizerState(), weights: b.weights() };
    for (const key of ['weights', 'm', 'v'] as const) {
      expect(sa[key].size).toBeGreaterThan(0);
      for (const [name, t] of sa[key]) {
        const u = sb[key].get(name)?.data as Float32Array;
        // Bitwise equal (a byte comparison: deep-equality over ~10^5 elements per tensor is slow).
        expect(Buffer.compare(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength), Buffer.from(u.buffer, u.byteOffset, u.byteLength)), `${key} ${name}`).toBe(0);
      }
    }
    expect(Array.from((await a.predict(makeBatch(5))).data as Float32Array)).toEqual(Array.from((await b.predict(makeBatch(5))).data as Float32Array));
    await a.release();
    await b.release();
  });

  it('a resumed run draws the same dropout masks as an uninterrupted one', async () => {
    const a = await Trainer.create(config, initWeights(config, 2), { optimizer, seed: 4 });
    await a.trainStep(makeBatch(0));
    const state = { ...a.optimizerState(), weights: a.weights() };
    const next = await a.trainStep(makeBatch(1));
    const b = await Trainer.create(config, initWeights(config, 2), { optimizer, seed: 4 });
    b.restore(state);
    expect((await b.trainStep(makeBatch(1))).loss).toBeCloseTo(next.loss, 6);
    await a.release();
    await b.release();
  });

  it('dropout is on in training and off in eval; same seed, same losses', async () => {
    const run = async (seed: number): Promise<number[]> => {
      const t = await Trainer.create(config, initWeights(config, 1), { optimizer, seed });
      const out = [];
      for (let i = 0; i < 3; i++) out.push((await t.trainStep(makeBatch(i))).loss);
      await t.release();
      return out;
    };
    const a = await run(5);
    expect(await run(5)).toEqual(a);
    expect(await run(6)).not.toEqual(a);
    const off = await Trainer.create(config, initWeights(config, 1), { optimizer, dropout: false });
    expect((await off.trainStep(makeBatch(0))).loss).not.toBeCloseTo(a[0] as number, 3);
    await off.release();
    const t = await Trainer.create(config, initWeights(config, 1), { optimizer, seed: 5 });
    const l1 = await t.predict(makeBatch(0));
    const l2 = await t.predict(makeBatch(0));
    expect(Array.from(l1.data as Float32Array)).toEqual(Array.from(l2.data as Float32Array));
    await t.release();
  });

  it('linear warmup then decay, as the Hugging Face scheduler', async () => {
    const t = await Trainer.create(config, initWeights(config, 1), { optimizer, dropout: false });
    const lrs = [];
    for (let i = 0; i < 4; i++) lrs.push((await t.trainStep(makeBatch(i))).lr);
    // warmup 1 step: lr(0) = 0, then 1e-3 · (10 − s) / 9
    expect(lrs[0]).toBeCloseTo(0, 10);
    expect(lrs[1]).toBeCloseTo(1e-3, 8);
    expect(lrs[2]).toBeCloseTo((1e-3 * 8) / 9, 8);
    await t.release();
  });

  it('a diverging run stops at the step that made the weights NaN, even when its loss was still finite', async () => {
    // At lr 1e3 the loss grows for a few steps; then a step's gradients overflow (norm ∞) while
    // the loss, taken before the update, is still finite, and that update makes the weights NaN.
    const t = await Trainer.create(config, initWeights(config, 1), {
      optimizer: { lr: 1e3, weightDecay: 0.01, maxGradNorm: 1 },
      dropout: false,
    });
    const nonFinite = (): number => {
      let n = 0;
      for (const w of t.weights().values()) for (const x of w.data as Float32Array) if (!Number.isFinite(x)) n++;
      return n;
    };
    let error: Error | undefined;
    let steps = 0;
    for (let i = 0; i < 12 && !error; i++) {
      const r = await t.trainStep(makeBatch(i)).catch((e: unknown) => {
        error = e as Error;
      });
      if (!r) break;
      steps++;
      // A step that returns leaves weights the next step (or a save) can use.
      expect(nonFinite(), `weights after step ${r.step}`).toBe(0);
      expect(Number.isFinite(r.gradNorm)).toBe(true);
    }
    expect(error?.message).toMatch(new RegExp(`^training diverged at step ${steps + 1}: .*; lower the learning rate$`));
    expect(t.step).toBe(steps);
    await t.release();
  });

  it('a model that overflows before any update is named as the cause, not the learning rate', async () => {
    // Finite weights (they load) whose logits overflow: the loss of step 1 is not finite.
    const weights = initWeights(config, 1);
    const head = weights.get('classifier.weight')?.data as Float32Array;
    head.forEach((x, i) => (head[i] = x * 1e37));
    const t = await Trainer.create(config, weights, { optimizer: { lr: 1e-5, weightDecay: 0, maxGradNorm: 1 }, dropout: false });
    await expect(t.trainStep(makeBatch(0))).rejects.toThrow(
      /^training cannot start: at step 1, before any update, the (loss|gradient norm) is \S+: the starting model gives non-finite values on this batch \(weights far too large\?\), which no learning rate causes; check the model$/,
    );
    await t.release();
  });

  it('masked LM on gathered positions equals the full-sequence loss and update', async () => {
    const mlm = presetConfig('small-2L-128', 'bert', 300, [], 'masked-lm');
    const full = makeBatch(4);
    const positions: number[] = [];
    const labels = new BigInt64Array(full.labels.length).fill(-100n);
    for (let i = 0; i < labels.length; i += 7) {
      positions.push(i);
      labels[i] = full.inputIds[i] as bigint;
    }
    const a = await Trainer.create(mlm, initWeights(mlm, 3), { optimizer, dropout: false });
    const ra = await a.trainStep({ ...full, labels });
    const b = await Trainer.create(mlm, initWeights(mlm, 3), { optimizer, dropout: false, mlmGather: true });
    const rb = await b.trainStep({ ...full, labels: BigInt64Array.from(positions, (p) => labels[p] as bigint), mlmPositions: BigInt64Array.from(positions, BigInt) });
    expect(rb.loss).toBeCloseTo(ra.loss, 5);
    expect(rb.gradNorm).toBeCloseTo(ra.gradNorm, 4);
    await a.release();
    await b.release();
  });
});

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');

describe.skipIf(!existsSync(GOLDENS))('Trainer on every encoder family', () => {
  for (const name of ['mobilebert-token-classification', 'roberta-token-classification', 'electra-token-classification', 'albert-token-classification']) {
    it(`${name.split('-')[0]}: seeded steps with dropout repeat exactly, and the loss falls`, async () => {
      const dir = path.join(GOLDENS, name);
      const folder = loadHfFolder(dir, { requireVocab: false });
      // Dropout on for every family, so the mask inputs are exercised (ALBERT's config has 0).
      const config = { ...folder.config, hiddenDropout: 0.1, attentionDropout: 0.1, classifierDropout: 0.1 };
      const gold = readSafetensors(path.join(dir, 'goldens.safetensors')).tensors;
      const ids = gold.get('input/input_ids')?.data as BigInt64Array;
      const types = gold.get('input/token_type_ids')?.data as BigInt64Array | undefined;
      const batch: Batch = {
        batchSize: 2,
        seqLen: 11,
        inputIds: ids,
        attentionMask: gold.get('input/attention_mask')?.data as BigInt64Array,
        ...(types ? { tokenTypeIds: types } : {}),
        labels: gold.get('input/labels')?.data as BigInt64Array,
      };
      const opt = { lr: 3e-3, weightDecay: 0, maxGradNorm: 1 };
      const a = await Trainer.create(config, folder.weights, { optimizer: opt, seed: 5 });
      const single = [await a.trainStep(batch), await a.trainStep(batch)];
      const b = await Trainer.create(config, folder.weights, { optimizer: opt, seed: 5 });
      expect([await b.trainStep(batch), await b.trainStep(batch)]).toEqual(single);
      const losses: number[] = [];
      for (let i = 0; i < 40; i++) losses.push((await a.trainStep(batch)).loss);
      expect(Math.min(...losses.slice(-5))).toBeLessThan((single[0]?.loss as number) * 0.5);
      // torch's padding_idx: the padding row of the word embeddings never changes (no decay here).
      const word = `${name.split('-')[0]}.embeddings.word_embeddings.weight`;
      const E = embeddingWidth(folder.config);
      const pad = folder.config.padTokenId;
      const before = (folder.weights.get(word)?.data as Float32Array).subarray(pad * E, (pad + 1) * E);
      const after = (a.weights().get(word)?.data as Float32Array).subarray(pad * E, (pad + 1) * E);
      expect(Array.from(after)).toEqual(Array.from(before));
      await a.release();
      await b.release();
    });
  }
});
