// Task distillation from a teacher whose weights are a sharded checkpoint (an index and its
// shards): it is recorded by the hash of every shard, and its cached outputs are labelled again
// when a shard's content changes (not when a shard is only touched: the cache knows the teacher by
// the content of its weights).
import { readFileSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readSafetensors } from '../checkpoints/safetensors.ts';
import { shardName, writeShardedCheckpoint } from '../checkpoints/test-helpers.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { withTaskMeta } from '../tasks/model-setup.ts';
import { distillTask } from './task-distill.ts';

const SETTINGS = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' } };

/** A small NER teacher whose weights are in two safetensors shards. */
function shardedTeacher(dir: string, vocabFile: string, seed = 3): string {
  const vocab = readVocab(vocabFile);
  const base = presetConfig('small-2L-128', 'bert', vocab.length, ['O', 'B-Disease', 'I-Disease'], 'token-classification');
  const config = withTaskMeta(base, { task: 'ner', maxLength: 32, stride: 8 });
  saveHfFolder(dir, { config, weights: initWeights(config, seed), vocab, tokenizer: SETTINGS });
  const tensors = readSafetensors(path.join(dir, 'model.safetensors')).tensors;
  writeShardedCheckpoint(dir, tensors, 'safetensors', 2);
  rmSync(path.join(dir, 'model.safetensors'));
  return dir;
}

describe('distillation from a sharded teacher', () => {
  it('records the teacher by the hash of its shards and labels again when a shard changes', async () => {
    const { dir, file } = writeCorpus('distill-sharded', 4);
    const teacher = shardedTeacher(path.join(dir, 'teacher'), writeTinyVocab(dir));
    const base = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: file, steps: 2, batchSize: 2, cacheDir: path.join(dir, 'cache') };
    const labelled = async (out: string): Promise<boolean> => {
      let ran = false;
      await distillTask({ ...base, out: path.join(dir, out) }, { emit: (e) => (ran ||= e.type === 'infer-progress'), isCancelled: () => false });
      return ran;
    };
    expect(await labelled('s1')).toBe(true);
    const lineage = JSON.parse(readFileSync(path.join(dir, 's1', 'lineage.json'), 'utf8')) as { entries: { kind: string; sha256?: string; source: string }[] };
    const entry = lineage.entries.find((e) => e.kind === 'teacher');
    expect(entry?.source).toBe('teacher model "teacher" (identified by the sha256 of its weights)');
    expect(entry?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await labelled('s2')).toBe(false);
    // A shard touched (a later time, the same bytes) is the same teacher: its outputs are kept.
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(teacher, shardName('safetensors', 1, 2)), later, later);
    expect(await labelled('s3')).toBe(false);
    // The shards replaced by other weights: the cached outputs are not this teacher's.
    shardedTeacher(teacher, writeTinyVocab(dir), 4);
    expect(await labelled('s4')).toBe(true);
  }, 60_000);
});
