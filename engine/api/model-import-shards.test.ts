// models:import-folder of a sharded checkpoint (an index and its shards): the library's copy is
// one model.safetensors of the same tensors, whose hash identifies the shards' content; an
// export of it is one model.safetensors too.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { readSafetensors } from '../checkpoints/safetensors.ts';
import { type ShardFormat, writeShardedCheckpoint } from '../checkpoints/test-helpers.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { hashFile } from '../store/files.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const REF = readSafetensors(join(GOLDEN, 'model.safetensors')).tensors;

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-model-shards-', { inSubfolder: true });
});
afterEach(async () => {
  await t.close();
});

/** The golden BERT with its weights in `n` shards of `format` (of `tensors`, by default the golden's). */
function shardedCopy(name: string, format: ShardFormat, n: number, tensors: ReadonlyMap<string, HostTensor> = REF): string {
  const folder = join(t.dir, name);
  mkdirSync(folder);
  for (const f of readdirSync(GOLDEN).filter((f) => !f.startsWith('goldens.') && f !== 'pytorch_model.bin' && f !== 'model.safetensors'))
    writeFileSync(join(folder, f), readFileSync(join(GOLDEN, f)));
  writeShardedCheckpoint(folder, tensors, format, n);
  return folder;
}

describe('models:import-folder of a sharded checkpoint', () => {
  it('stores the shards joined as one model.safetensors, hashed, and exports it as one file', async () => {
    const model = await t.call('models:import-folder', { path: shardedCopy('sharded', 'safetensors', 3), phiStatus: 'no-phi', name: 'Sharded BERT' });
    const dir = join(t.dir, 'data', model.path);
    expect(readdirSync(dir).filter((f) => /safetensors|\.bin|index/.test(f))).toEqual(['model.safetensors']);
    expect(await hashFile(join(dir, 'model.safetensors'))).toEqual({ sizeBytes: model.sizeBytes, sha256: model.sha256 });
    const stored = loadHfFolder(dir);
    const golden = loadHfFolder(GOLDEN);
    expect([...stored.weights.keys()].sort()).toEqual([...golden.weights.keys()].sort());
    for (const [k, w] of golden.weights) expect(stored.weights.get(k)?.data).toEqual(w.data);

    // The same tensors in other shards (two PyTorch ones) are the same model: the same hash.
    const again = await t.call('models:import-folder', { path: shardedCopy('sharded-bin', 'pytorch', 2), phiStatus: 'no-phi' });
    expect(again.sha256).toBe(model.sha256);
    // One value changed in the last shard: another hash.
    const changed = new Map(REF);
    const bias = REF.get('classifier.bias') as HostTensor;
    changed.set('classifier.bias', { ...bias, data: (bias.data as Float32Array).map((x, i) => (i === 0 ? x + 1 : x)) });
    const other = await t.call('models:import-folder', { path: shardedCopy('sharded-changed', 'safetensors', 3, changed), phiStatus: 'no-phi' });
    expect(other.sha256).not.toBe(model.sha256);

    const out = join(t.dir, 'exported');
    const report = await t.call('models:export', { modelId: model.id, outPath: out });
    expect(report.files.filter((f) => /safetensors|\.bin|index/.test(f))).toEqual(['model.safetensors']);
    expect((await t.call('models:import-folder', { path: out, phiStatus: 'no-phi' })).sha256).toBe(model.sha256);
  });
});
