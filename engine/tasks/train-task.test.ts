// End-to-end training on real data with tiny random models: NER on ~200 NCBI-disease sentences
// (loss falls, metrics.json shape and lineage, HF folder loads back, predictions map to exact
// offsets, evaluate agrees with the dev metric), resume equivalence (kill at any step with
// dropout on; cancel at any step with dropout off), and RE on a GAD subset with AUROC.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeTinyVocab } from '../pretrain/test-corpus.ts';
import { DAMAGED_CHECKPOINT } from './checkpoint.ts';
import { loadDocuments } from './data-load.ts';
import type { TaskContext, TaskEvent } from './events.ts';
import { evaluate, predict } from './predict-task.ts';
import {
  conllSubset,
  DATA,
  HAS_DATA,
  tempDir,
  tsvSubset,
  VOCAB,
  removeTempDirs,
} from './test-helpers.ts';
import { train, type TrainArgs, type TrainResult } from './train-task.ts';
import { automaticEpochs } from './train-defaults.ts';
import type { TrainMetrics } from './train-report.ts';

afterAll(removeTempDirs);

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const NCBI = path.join(DATA, 'ner', 'ncbi-disease');

/**
 * Events kept; cancelled after `cancelAfterSteps` looks at the flag by the training loop (NER:
 * the looks after its "N training inputs" line; reading the data looks between files too).
 */
function collect(cancelAfterSteps = Infinity): TaskContext & { events: TaskEvent[] } {
  let checks = 0;
  let looping = false;
  const events: TaskEvent[] = [];
  return {
    events,
    emit: (e) => {
      events.push(e);
      if (e.type === 'log' && /^ner: \d+ training inputs/.test(e.message)) looping = true;
    },
    isCancelled: () => looping && ++checks > cancelAfterSteps,
  };
}

/**
 * The first 8,000 entries of the BERT vocabulary (specials, characters, the commonest words and
 * pieces) in `dir`: a fifth of the embedding table to initialise, save and checkpoint, for runs
 * whose claims do not depend on what the model learns.
 */
function leadingVocab(dir: string): string {
  const file = path.join(dir, 'vocab-8000.txt');
  writeFileSync(file, `${readVocab(VOCAB).slice(0, 8000).join('\n')}\n`);
  return file;
}

function readMetrics(dir: string): TrainMetrics {
  return JSON.parse(readFileSync(path.join(dir, 'metrics.json'), 'utf8')) as TrainMetrics;
}

describe.skipIf(!HAS_DATA)('NER training on NCBI-disease', () => {
  const dir = tempDir('train-ner');
  const out = path.join(dir, 'model');
  let trainFile = '';
  let devFile = '';
  let ctx: ReturnType<typeof collect>;
  let metrics: TrainMetrics;
  /** The suite's NER run on its NCBI subsets (4 epochs of 14 steps), with `over` on top. */
  const nerArgs = (over: Partial<TrainArgs> & { out: string }): TrainArgs => ({
    task: 'ner',
    train: trainFile,
    dev: devFile,
    preset: 'small-2L-128',
    vocab: VOCAB,
    epochs: 4,
    batchSize: 16,
    maxLength: 64,
    seed: 7,
    ...over,
  });

  beforeAll(async () => {
    // 200 sentences with at least one mention: a random tiny model then learns entities within 56 steps.
    trainFile = conllSubset(path.join(NCBI, 'train.tsv'), 0, 200, dir, 'train.tsv', true);
    devFile = conllSubset(path.join(NCBI, 'devel.tsv'), 0, 80, dir, 'dev.tsv');
    ctx = collect();
    const r = await train(nerArgs({ out, lr: 2e-3, patience: 0 }), ctx);
    expect(r.status).toBe('completed');
    metrics = readMetrics(out);
  });

  it('lowers the loss and reports progress', () => {
    expect(metrics.steps).toBe(56);
    expect(mean(metrics.losses.slice(-8))).toBeLessThan(0.5 * mean(metrics.losses.slice(0, 4)));
    const progress = ctx.events.filter((e) => e.type === 'progress');
    expect(progress[0]).toMatchObject({ type: 'progress', step: 1, totalSteps: 56, epoch: 1 });
    expect(progress[progress.length - 1]).toMatchObject({ step: 56, epoch: 4, etaSec: 0 });
    for (const p of progress)
      expect(Object.keys(p)).toEqual(
        expect.arrayContaining(['loss', 'lr', 'stepsPerSec', 'etaSec']),
      );
    expect(ctx.events.filter((e) => e.type === 'eval')).toHaveLength(4);
  });

  it('writes metrics.json with dev metrics, history, settings and lineage', () => {
    expect(Object.keys(metrics.dev ?? {})).toEqual(['micro', 'macro', 'per_type', 'lenient']);
    expect(Object.keys(metrics.dev?.micro ?? {})).toEqual(['precision', 'recall', 'f1']);
    expect(Object.keys(metrics.dev?.per_type ?? {})).toEqual(['Disease']);
    expect(metrics.dev?.micro.f1).toBeGreaterThan(0.05);
    expect(metrics.history.map((h) => h.step)).toEqual([14, 28, 42, 56]);
    expect(metrics.best?.dev_f1).toBe(Math.max(...metrics.history.map((h) => h.dev_f1)));
    expect(metrics.config).toMatchObject({
      epochs: 4,
      batch_size: 16,
      lr: 2e-3,
      seed: 7,
      weight_decay: 0.01,
      warmup_ratio: 0.1,
      max_grad_norm: 1,
    });
    const sha = createHash('sha256').update(readFileSync(trainFile)).digest('hex');
    expect(metrics.data.train).toEqual([
      { path: trainFile, sha256: sha, bytes: readFileSync(trainFile).byteLength },
    ]);
    expect(metrics.data.counts).toMatchObject({ train_sentences: 200, dev_sentences: 80 });
    expect(metrics.wall_time_sec).toBeGreaterThan(0);
    expect(readFileSync(path.join(out, 'training_card.md'), 'utf8')).toContain(sha);
  });

  it('saves a Hugging Face folder that loads back, without the checkpoint', () => {
    const m = loadHfFolder(out);
    expect(m.config.task).toBe('token-classification');
    expect(m.config.labels).toEqual(['O', 'B-Disease', 'I-Disease']);
    expect(m.config.raw['benchtop']).toEqual({ task: 'ner', max_length: 64, stride: 15 });
    expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
  });

  it('evaluates the saved model exactly as the dev metric of the kept model', async () => {
    const r = await evaluate({ task: 'ner', model: out, data: devFile });
    expect(r.metrics.micro).toEqual(metrics.dev?.micro);
    expect(r.text).toContain('strict');
  });

  it('stops early when dev F1 stops improving and reports the step it stopped at', async () => {
    // A learning rate too small to change any prediction: dev F1 is flat from the first
    // evaluation, so with patience 1 the run stops at the second (step 6 of 56 planned).
    const early = path.join(dir, 'early');
    const c = collect();
    const r = await train(nerArgs({ out: early, lr: 1e-12, patience: 1, evalEvery: 3 }), c);
    expect(r.status).toBe('early-stopped');
    const m = readMetrics(early);
    expect(m).toMatchObject({ status: 'early-stopped', steps: 6, total_steps: 56 });
    expect(m.history.map((h) => h.step)).toEqual([3, 6]);
    // The last progress report is for the last step trained, whatever the throttling dropped.
    const progress = c.events.filter((e) => e.type === 'progress');
    expect(progress.at(-1)).toMatchObject({ step: 6, totalSteps: 56, epoch: 1 });
    // Patience running out on the last step the run was allowed is not an early stop.
    const capped = path.join(dir, 'capped');
    const rc = await train(nerArgs({ out: capped, lr: 1e-12, patience: 1, evalEvery: 1, maxSteps: 2 }));
    expect(rc.status).toBe('max-steps');
    expect(readMetrics(capped)).toMatchObject({ status: 'max-steps', steps: 2 });
  });

  it('fine-tunes a folder: keeps a matching head, adds one to a masked-LM model', async () => {
    const common = {
      task: 'ner' as const,
      train: trainFile,
      dev: devFile,
      batchSize: 16,
      maxLength: 64,
    };
    const short = { ...common, epochs: 1, maxSteps: 1 };
    const again = await train({ ...short, model: out, out: path.join(dir, 'again') });
    expect(again.metrics?.model).toMatchObject({
      origin: path.basename(out), // the folder's name only: the card and metrics.json travel with the model
      new_parameters: 0,
      labels: ['O', 'B-Disease', 'I-Disease'],
    });
    const mlmDir = path.join(dir, 'mlm');
    const mlmVocab = readVocab(leadingVocab(dir));
    const config = presetConfig('small-2L-128', 'bert', mlmVocab.length, [], 'masked-lm');
    const tokenizer = {
      doLowerCase: true,
      stripAccents: null,
      tokenizeChineseChars: true,
      modelMaxLength: 512,
      specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
    };
    saveHfFolder(mlmDir, {
      config,
      weights: initWeights(config, 5),
      vocab: mlmVocab,
      tokenizer,
    });
    const fromMlm = await train({ ...short, model: mlmDir, out: path.join(dir, 'from-mlm') });
    expect(fromMlm.metrics?.model.new_parameters).toBe(2);
    expect(loadHfFolder(path.join(dir, 'from-mlm')).config.task).toBe('token-classification');
    const limited = await train({
      ...common,
      epochs: 3,
      maxMinutes: 1e-6,
      model: out,
      out: path.join(dir, 'timed'),
    });
    expect(limited.status).toBe('time-limit');
  });

  it('predicts entities at exact character offsets on PubTator abstracts', async () => {
    const file = path.join(dir, 'pred.jsonl');
    const input = path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
    const r = await predict({ model: out, input, out: file, format: 'jsonl' });
    expect(r.documents).toBe(100);
    expect(r.entities).toBeGreaterThan(20);
    expect(r.wordsPerSec).toBeGreaterThan(0);
    // Read the export back through the importer (which checks offsets against the text).
    const source = await loadDocuments(input);
    const back = await loadDocuments(file);
    expect(back.issues).toEqual([]);
    expect(back.documents.map((d) => d.text)).toEqual(source.documents.map((d) => d.text));
    const isWordChar = (c: string | undefined): boolean =>
      c !== undefined && /[\p{L}\p{N}]/u.test(c);
    let checked = 0;
    for (const d of back.documents) {
      for (const e of d.entities) {
        const { start, end } = e.spans[0] ?? { start: 0, end: 0 };
        expect(e.text).toBe(d.text.slice(start, end));
        // Spans are whole words: no letter or digit continues them on either side.
        expect(isWordChar(d.text[start - 1]) && isWordChar(d.text[start])).toBe(false);
        expect(isWordChar(d.text[end - 1]) && isWordChar(d.text[end])).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe(r.entities);
  });
});

describe.skipIf(!HAS_DATA)('resuming an interrupted run', () => {
  const dir = tempDir('resume');
  let base: TrainArgs;
  /** For runs whose claims do not depend on what the model learns (see leadingVocab). */
  let smallVocab = '';
  beforeAll(() => {
    smallVocab = leadingVocab(dir);
    const trainFile = conllSubset(path.join(NCBI, 'train.tsv'), 300, 340, dir, 'train.tsv');
    const devFile = conllSubset(path.join(NCBI, 'devel.tsv'), 0, 16, dir, 'dev.tsv');
    base = {
      task: 'ner',
      out: '',
      train: trainFile,
      dev: devFile,
      preset: 'small-2L-128',
      vocab: VOCAB,
      epochs: 2,
      batchSize: 8,
      lr: 1e-3,
      maxLength: 48,
      seed: 3,
      checkpointEvery: 3,
    };
  });

  /** The uninterrupted run (dropout on) that both resume-equivalence tests compare with, trained once. */
  let uninterrupted: Promise<TrainResult> | undefined;
  const wholeRun = (): Promise<TrainResult> => (uninterrupted ??= train({ ...base, out: path.join(dir, 'a') }));

  it('continues a killed run (dropout on) with exactly the losses of an uninterrupted one', async () => {
    const whole = await wholeRun();
    expect(whole.metrics?.steps).toBeGreaterThan(8);
    const out = path.join(dir, 'b');
    // Killed after step 5 without saving: the last checkpoint is the one at step 3.
    expect((await train({ ...base, out, saveOnCancel: false }, collect(5))).status).toBe(
      'cancelled',
    );
    const resumed = await train({ ...base, out });
    expect(resumed.metrics?.resumed_from_step).toBe(3);
    expect(resumed.metrics?.losses).toEqual(whole.metrics?.losses);
    expect(resumed.metrics?.history.map((h) => h.dev_f1)).toEqual(
      whole.metrics?.history.map((h) => h.dev_f1),
    );
  });

  it('stops at the next step when the cancel flag is set by an event (the CLI\'s Ctrl-C)', async () => {
    // A SIGINT handler runs as a macrotask; the loop must give it a turn between steps, not
    // only at the epoch's evaluation (5 steps per epoch here).
    let cancelled = false;
    const ctx: TaskContext = {
      emit: (e) => {
        if (e.type === 'progress' && e.step === 1) setTimeout(() => (cancelled = true), 0);
      },
      isCancelled: () => cancelled,
    };
    const out = path.join(dir, 'sigint');
    const r = await train({ ...base, vocab: smallVocab, out, checkpointEvery: 0 }, ctx);
    expect(r.status).toBe('cancelled');
    const state = JSON.parse(readFileSync(path.join(out, 'checkpoint', 'state.json'), 'utf8')) as {
      step: number;
    };
    expect(state.step).toBeLessThanOrEqual(2);
  });

  it('continues a run cancelled between checkpoints (dropout on) with exactly the losses of an uninterrupted one', async () => {
    const whole = await wholeRun();
    const out = path.join(dir, 'f');
    // Cancelled after step 4 (checkpoints at 3 and 5): saved at 4, with the masks of seed 3.
    expect((await train({ ...base, out }, collect(4))).status).toBe('cancelled');
    const resumed = await train({ ...base, out, resume: 'require' });
    expect(resumed.metrics?.resumed_from_step).toBe(4);
    expect(resumed.metrics?.losses).toEqual(whole.metrics?.losses);
  });

  it('refuses a seed beyond 32 bits, a max-length without room for a word and a stride windows cannot advance by', async () => {
    const out = path.join(dir, 'h');
    await expect(train({ ...base, out, seed: 2 ** 32 })).rejects.toThrow('--seed must be an integer from 0 to 4294967295, got 4294967296');
    await expect(train({ ...base, out, maxLength: 2 })).rejects.toThrow('--max-length must be an integer ≥ 3, got 2');
    await expect(train({ ...base, out, stride: 46 })).rejects.toThrow('--stride must be an integer from 0 to 45, got 46');
    expect(existsSync(out)).toBe(false);
  });

  it('checks every number before reading the data or the model', async () => {
    // The training file does not exist: a number checked later would be hidden behind that error.
    const missing = { ...base, out: path.join(dir, 'i'), train: path.join(dir, 'no-such-file.tsv') };
    await expect(train({ ...missing, epochs: 0 })).rejects.toThrow(/^--epochs must be an integer ≥ 1, got 0/);
    await expect(train({ ...missing, lr: 2 })).rejects.toThrow(/^--lr /);
    await expect(train({ ...missing, lr: 0 })).rejects.toThrow(/^--lr must be a number > 0 and ≤ 1, got 0$/);
    await expect(train({ ...missing, maxSteps: 0 })).rejects.toThrow(/^--max-steps /);
    await expect(train({ ...missing, maxMinutes: -1 })).rejects.toThrow(/^--max-minutes /);
    await expect(train(missing)).rejects.toThrow(/no-such-file\.tsv/);
  });

  it('keeps the checkpoint when a --no-resume run is refused before it starts', async () => {
    const out = path.join(dir, 'g');
    const args = { ...base, vocab: smallVocab };
    expect((await train({ ...args, out }, collect(2))).status).toBe('cancelled');
    const state = path.join(out, 'checkpoint', 'state.json');
    await expect(train({ ...args, out, resume: 'never', epochs: 0 })).rejects.toThrow(/--epochs/);
    await expect(train({ ...args, out, resume: 'never', train: path.join(dir, 'gone.tsv') })).rejects.toThrow(/gone\.tsv/);
    expect(existsSync(state)).toBe(true);
    const fresh = await train({ ...args, out, resume: 'never', maxSteps: 1 });
    expect(fresh.metrics?.resumed_from_step).toBeNull();
  });

  it('refuses to resume when the best weights kept in the checkpoint are damaged, saying to start over', async () => {
    // A damaged best/model.safetensors failed as a plain model-file error: no --no-resume hint,
    // and the workbench's Continue did not set the checkpoint aside to offer Start again.
    const out = path.join(dir, 'damaged-best');
    expect((await train({ ...base, out }, collect(7))).status).toBe('cancelled'); // best kept at step 5
    const file = path.join(out, 'checkpoint', 'best', 'model.safetensors');
    const bytes = readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 100) ^ 0xff, bytes.length - 100);
    writeFileSync(file, bytes);
    const resumed = train({ ...base, out });
    await expect(resumed).rejects.toThrow(`${file}: invalid safetensors file`);
    await expect(resumed).rejects.toMatchObject({ name: DAMAGED_CHECKPOINT });
    await expect(resumed).rejects.toThrow(/start the run over \(--no-resume on the command line, Start again in the workbench\)$/);
  });

  it('continues a cancelled run (dropout off) from the cancel step', async () => {
    const args = { ...base, vocab: smallVocab, dropout: false, checkpointEvery: 0 };
    const whole = await train({ ...args, out: path.join(dir, 'c') });
    const out = path.join(dir, 'd');
    const stopped = await train({ ...args, out }, collect(4));
    expect(stopped.status).toBe('cancelled');
    await expect(train({ ...args, seed: 4, out })).rejects.toThrow(
      /different training data or settings/,
    );
    const resumed = await train({ ...args, out, resume: 'require' });
    expect(resumed.metrics?.resumed_from_step).toBe(4);
    expect(resumed.metrics?.losses).toEqual(whole.metrics?.losses);
  });
});

describe.skipIf(!HAS_DATA)('RE training on GAD', () => {
  it('lowers the loss and reports AUROC on the test subset', async () => {
    const dir = tempDir('train-re');
    const trainFile = tsvSubset(
      path.join(DATA, 're', 'gad-fold1', 'train.tsv'),
      10,
      160,
      dir,
      'train.tsv',
      false,
    );
    const testFile = tsvSubset(
      path.join(DATA, 're', 'gad-fold1', 'test.tsv'),
      5,
      100,
      dir,
      'test.tsv',
      true,
    );
    const out = path.join(dir, 'model');
    const r = await train({
      task: 're',
      out,
      train: trainFile,
      test: testFile,
      preset: 'small-2L-128',
      vocab: VOCAB,
      epochs: 5,
      batchSize: 16,
      lr: 2e-3,
      patience: 0,
      dropout: false,
    });
    const m = r.metrics as TrainMetrics;
    expect(m.model.labels).toEqual(['0', '1']);
    expect(m.data.split).toMatch(/seeded 10% of the training examples/);
    expect(mean(m.losses.slice(-9))).toBeLessThan(mean(m.losses.slice(0, 9)) - 0.1);
    expect(m.test?.auroc).toBeGreaterThan(0);
    expect(m.test?.auroc).toBeLessThan(1);
    expect(Object.keys(m.test?.per_type ?? {})).toEqual(['1']);
    expect(loadHfFolder(out).config.raw['benchtop']).toEqual({
      task: 're',
      max_length: 128,
      negative_label: '0',
      entity_pairs: [
        ['DISEASE', 'GENE'],
        ['GENE', 'DISEASE'],
      ],
    });
  });
});

describe.skipIf(!HAS_DATA)('the learning rate when none is given', () => {
  const dir = tempDir('train-default-lr');
  // The rate follows the hidden size alone: a tiny vocabulary keeps the models (and their runs) small.
  const tinyVocab = writeTinyVocab(dir);
  /** A random base model folder of a preset's size (as a downloaded or shipped one would be). */
  const base = (preset: 'small-2L-128' | 'tiny-4L-312'): string => {
    const vocab = readVocab(tinyVocab);
    const config = presetConfig(preset, 'bert', vocab.length, [], 'masked-lm');
    const folder = path.join(dir, preset);
    if (existsSync(folder)) return folder;
    const specialTokens = { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' };
    const tokenizer = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens };
    saveHfFolder(folder, { config, weights: initWeights(config, 5), vocab, tokenizer });
    return folder;
  };

  it('is 5e-4 from a small model such as the default student, 5e-5 from a larger one', async () => {
    // At 5e-5 the default student (hidden size 128) learnt nothing from 100 NCBI-disease
    // abstracts in 3 epochs (dev F1 0); the larger models keep Hugging Face's fine-tuning default.
    const train20 = conllSubset(path.join(NCBI, 'train.tsv'), 0, 20, dir, 'train.tsv', true);
    for (const [preset, lr] of [['small-2L-128', 5e-4], ['tiny-4L-312', 5e-5]] as const) {
      const out = path.join(dir, `out-${preset}`);
      const r = await train({ task: 'ner', train: train20, model: base(preset), out, maxSteps: 1, batchSize: 4, maxLength: 32 }, collect());
      expect(r.status).toBe('max-steps');
      expect(readMetrics(out).config.lr).toBe(lr);
    }
    // Given, it is used as given; from random weights it is 5e-4 whatever the size.
    const given = path.join(dir, 'given');
    await train({ task: 'ner', train: train20, model: base('small-2L-128'), out: given, maxSteps: 1, batchSize: 4, maxLength: 32, lr: 3e-5 }, collect());
    expect(readMetrics(given).config.lr).toBe(3e-5);
    const preset = path.join(dir, 'preset');
    await train({ task: 'ner', train: train20, preset: 'tiny-4L-312', vocab: tinyVocab, out: preset, maxSteps: 1, batchSize: 4, maxLength: 32 }, collect());
    expect(readMetrics(preset).config.lr).toBe(5e-4);
  }, 120_000);

  it('spans the learning-rate schedule over --max-steps when it cuts the planned epochs short', async () => {
    const train20 = conllSubset(path.join(NCBI, 'train.tsv'), 0, 20, dir, 'train-sched.tsv', true);
    const ctx = collect();
    const args = { task: 'ner', train: train20, model: base('small-2L-128'), maxSteps: 4, epochs: 3, batchSize: 4, maxLength: 32, lr: 1e-3, warmupRatio: 0 } as const;
    const r = await train({ ...args, out: path.join(dir, 'sched') }, ctx);
    expect(r.status).toBe('max-steps');
    const progress = ctx.events.flatMap((e) => (e.type === 'progress' ? [e] : []));
    expect(progress.every((e) => e.totalSteps === 4)).toBe(true);
    // Linear decay over 4 steps (not the 15 of three epochs): the 4th step runs at a quarter of the rate.
    const last = progress[progress.length - 1];
    expect(last?.step).toBe(4);
    expect(last?.lr).toBeCloseTo(1e-3 / 4, 9);
  }, 60_000);
});

describe.skipIf(!HAS_DATA)('the epoch count when none is given', () => {
  const dir = tempDir('train-auto-epochs');

  it('is 3 for ample data and more for little, for about 600 steps, at most 20 epochs', () => {
    expect(automaticEpochs(16 * 300, 16)).toBe(3); // NCBI-disease at batch 16: 340 steps an epoch
    expect(automaticEpochs(16 * 60, 16)).toBe(10); // 100 abstracts: 60 steps an epoch
    expect(automaticEpochs(16 * 60 + 1, 16)).toBe(10); // 61 steps an epoch
    expect(automaticEpochs(20, 4)).toBe(20);
    expect(automaticEpochs(1, 32)).toBe(20);
  });

  it('is recorded with the run, and a given count is used as given', async () => {
    const train20 = conllSubset(path.join(NCBI, 'train.tsv'), 0, 20, dir, 'train.tsv', true);
    const common = { task: 'ner' as const, train: train20, preset: 'small-2L-128', vocab: leadingVocab(dir), batchSize: 4, maxLength: 32 };
    const auto = path.join(dir, 'auto');
    const ctx = collect();
    await train({ ...common, out: auto, maxSteps: 1 }, ctx);
    const perEpoch = readMetrics(auto).config;
    expect(perEpoch).toMatchObject({ epochs: 20, epochs_automatic: true });
    expect(ctx.events.some((e) => e.type === 'log' && /^epochs: 20 \(automatic: little data, \d+ steps an epoch/.test(e.message))).toBe(true);
    const given = path.join(dir, 'given');
    await train({ ...common, out: given, maxSteps: 1, epochs: 3 }, collect());
    expect(readMetrics(given).config.epochs).toBe(3);
    expect('epochs_automatic' in readMetrics(given).config).toBe(false);
  }, 120_000);
});

