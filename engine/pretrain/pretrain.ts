// `pretrain`: masked-LM pretraining from scratch (a preset size + vocabulary) or continual
// pretraining of an existing folder (its encoder kept, an MLM head created when it has none),
// on raw text streamed from disk with dynamic 15% 80/10/10 masking (optionally whole-word),
// AdamW with linear warmup/decay, resumable checkpoints and a per-invocation time limit. The
// result is a masked-LM Hugging Face folder with metrics.json, lineage.json and a model card.

import type { Device } from '../runtime/session.ts';
import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadHfFolder, saveHfFolder, type TokenizerSettings } from '../checkpoints/hf-folder.ts';
import { hasTokenTypes, type Architecture, type EncoderConfig } from '../model/config.ts';
import { checkMaxLength, SettingError } from '../tasks/setting-error.ts';
import { buildForward, buildLoss } from '../model/bert.ts';
import { initWeights, type InitOptions } from '../model/init.ts';
import { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { hfNoDecay } from '../optim/adamw.ts';
import { Session, checkThreads } from '../runtime/session.ts';
import { QUIET, type TaskContext } from '../tasks/events.ts';
import { makeTokenizer, prepareModel, shareName } from '../tasks/model-setup.ts';
import { defaultPretrainLearningRate } from '../tasks/train-defaults.ts';
import { checkOutApartFromData } from '../tasks/data-load.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { checkLearningRate } from '../train/step-guard.ts';
import { Trainer } from '../train/trainer.ts';
import { hashFiles, lineageRecord, privacySection, startingPointEntry, type LineageEntry } from '../distill/lineage.ts';
import type { PhiStatus } from '../store/models.ts';
import { vocabularyRecord } from '../distill/vocab-origin.ts';
import { FINGERPRINT_FILE, fingerprintBytes, startingFingerprints, textFingerprintBytes } from '../distill/fingerprint-file.ts';
import { batchMaskSeed, mlmBatch, mlmBlocks, type MlmBlock } from './mlm-data.ts';
import { runMlmLoop, type MlmLoopResult } from './mlm-loop.ts';
import { checkTextSources, encodingNotes, skippedLinkNotes } from './text-files.ts';
import { checkNotFile, checkOutFolder, withOutLock } from '../io/out-folder.ts';

/** A masked-LM model ready to train. */
export interface MlmModel {
  config: EncoderConfig;
  weights: Map<string, HostTensor>;
  vocab: string[];
  tokenizerSettings: TokenizerSettings;
  tokenizer: WordPieceTokenizer;
  origin: string;
}

/** A masked-LM model from a folder (head created when missing) or a preset + vocabulary. */
export function prepareMlmModel(src: { model?: string; preset?: string; vocab?: string; arch?: Architecture; cased?: boolean }, seed: number, init: InitOptions = {}): MlmModel {
  if (src.model === undefined) {
    const pm = prepareModel(src, 'masked-lm', [], seed, init);
    return { config: pm.config, weights: pm.weights, vocab: pm.vocab, tokenizerSettings: pm.tokenizerSettings, tokenizer: pm.tokenizer, origin: pm.origin };
  }
  const m = loadHfFolder(src.model);
  const raw = { ...m.config.raw };
  for (const k of ['id2label', 'label2id', 'num_labels', 'benchtop']) delete raw[k];
  const config: EncoderConfig = { ...m.config, task: 'masked-lm', labels: [], numLabels: 0, raw };
  const weights = initWeights(config, seed);
  for (const [name, t] of weights) {
    const have = m.weights.get(name);
    if (have && have.dims.length === t.dims.length && have.dims.every((d, i) => d === t.dims[i])) weights.set(name, have);
  }
  return { config, weights, vocab: m.vocab, tokenizerSettings: m.tokenizer, tokenizer: makeTokenizer(m.vocab, m.tokenizer), origin: shareName(src.model) };
}

/** Mean masked-LM loss of `weights` on `blocks` with fixed masks (eval mode). */
export async function mlmEvalLoss(config: EncoderConfig, weights: ReadonlyMap<string, HostTensor>, blocks: readonly MlmBlock[], tok: WordPieceTokenizer, opts: { seed: number; threads?: number; wholeWord?: boolean }): Promise<number | undefined> {
  if (blocks.length === 0) return undefined;
  const b = new GraphBuilder('benchtop_mlm_eval');
  const f = buildForward(b, config, { training: false, mlmGather: true });
  b.output(buildLoss(b, config, f.logits).loss, 'loss');
  const session = await Session.create(serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 'benchtop', metadata: {} }), { threads: opts.threads ?? 2 });
  try {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < blocks.length; i += 8) {
      const batch = mlmBatch(blocks.slice(i, i + 8), { tok, wholeWord: opts.wholeWord ?? false, vocabSize: config.vocabSize }, batchMaskSeed(opts.seed, -1 - i));
      const dims = [batch.batchSize, batch.seqLen];
      const feeds: Record<string, HostTensor> = {
        input_ids: { dtype: 'int64', dims, data: batch.inputIds },
        attention_mask: { dtype: 'int64', dims, data: batch.attentionMask },
        mlm_positions: { dtype: 'int64', dims: [batch.labels.length], data: batch.mlmPositions as BigInt64Array },
        labels: { dtype: 'int64', dims: [batch.labels.length], data: batch.labels },
      };
      if (hasTokenTypes(config)) feeds['token_type_ids'] = { dtype: 'int64', dims, data: new BigInt64Array(batch.inputIds.length) };
      for (const p of f.params) feeds[p] = weights.get(p) as HostTensor;
      const out = await session.run(feeds, ['loss']);
      sum += Number(out['loss']?.data[0]) * batch.labels.length;
      n += batch.labels.length;
    }
    return sum / n;
  } finally {
    await session.release();
  }
}

/** Arguments of `pretrain` (CLI flags map one to one). */
export interface PretrainArgs {
  model?: string;
  /** The PHI status `model`'s weights carry when the caller knows it (the CLI reads its folder's record); else its lineage.json decides. */
  modelPhiStatus?: PhiStatus;
  preset?: string;
  vocab?: string;
  arch?: Architecture;
  text: string[];
  /** The text holds (or may hold) patient information: the model is recorded as trained on PHI. */
  textContainsPhi?: boolean;
  out: string;
  steps?: number;
  batchSize?: number;
  maxLength?: number;
  lr?: number;
  warmupRatio?: number;
  wholeWordMask?: boolean;
  /** Dropout while pretraining (default on; compute-limited runs from scratch learn faster without). */
  dropout?: boolean;
  /** From scratch: start BERT's position table as scaled sinusoids instead of noise (see InitOptions). */
  sinusoidalPositions?: boolean;
  seed?: number;
  threads?: number;
  /** Where the steps run (default the CPU; WebGPU falls back with a reason). */
  device?: Device;
  checkpointEvery?: number;
  maxMinutes?: number;
  resume?: 'auto' | 'never';
  /** Replace a non-empty `out` (without it, only an empty folder or this run's own checkpoint is accepted). */
  overwrite?: boolean;
  /** Held-out blocks for the evaluation loss (default 64). */
  evalBlocks?: number;
}

/** What `pretrain` did. */
export interface PretrainResult {
  status: MlmLoopResult['status'];
  out: string;
  steps: number;
  evalLoss?: number;
  metrics?: Record<string, unknown>;
}

/** Shared settings of the MLM runs (pretrain and distill-general). */
export function mlmSettings(args: { steps?: number; batchSize?: number; maxLength?: number; seed?: number; checkpointEvery?: number; evalBlocks?: number; threads?: number; lr?: number }): { steps: number; batchSize: number; maxLength: number; seed: number; checkpointEvery: number; evalBlocks: number } {
  const int = (name: string, v: number | undefined, def: number, min: number): number => {
    const x = v ?? def;
    if (!Number.isInteger(x) || x < min) throw new Error(`--${name} must be an integer >= ${min}, got ${x}`);
    return x;
  };
  if (args.threads !== undefined) checkThreads(args.threads);
  // The Trainer takes any learning rate: at --lr 1e3 a run ended with losses of 2e11, saved.
  checkLearningRate(args.lr);
  return {
    steps: int('steps', args.steps, 10000, 1), batchSize: int('batch-size', args.batchSize, 32, 1), maxLength: int('max-length', args.maxLength, 128, 16),
    seed: int('seed', args.seed, 42, 0), checkpointEvery: int('checkpoint-every', args.checkpointEvery, 200, 0), evalBlocks: int('eval-blocks', args.evalBlocks, 64, 0),
  };
}

/**
 * Text-file lineage entries (pretraining text: gradients; non-private unless `containsPhi`, the
 * user's word that it holds patient information), named by folder or file name and content hash:
 * the model may be shared, and a full path names the user.
 */
export function textEntries(roots: readonly string[], kind: 'pretrain' | 'distill-transfer', containsPhi = false): LineageEntry[] {
  const phi = containsPhi ? ' (declared as holding patient information)' : '';
  return roots.map((r) => ({ kind, source: `text "${shareName(r)}"${phi}`, sha256: hashFiles(checkTextSources([r])), containsPhi, gradients: true }));
}

/** Fingerprint of settings + model origin + text content. */
export function runFingerprint(settings: unknown, origin: string, entries: readonly LineageEntry[]): string {
  return createHash('sha256').update(JSON.stringify({ settings, origin, text: entries.map((e) => e.sha256 ?? e.source) })).digest('hex');
}

/**
 * Checks `--out` (a file; a folder holding or inside one of the `data` paths, which saving would
 * delete or a later run read as text); returns whether to resume (a checkpoint there and
 * `resume` is not 'never').
 */
export function prepareRunOut(out: string, resume: 'auto' | 'never', overwrite: boolean, data: readonly (readonly [role: string, path: string | undefined])[]): boolean {
  const ckpt = path.join(out, 'checkpoint');
  checkNotFile(out);
  checkOutApartFromData(out, data);
  if (resume === 'never' && existsSync(ckpt)) rmSync(ckpt, { recursive: true, force: true });
  const resuming = resume === 'auto' && existsSync(path.join(ckpt, 'state.json'));
  checkOutFolder(out, { overwrite, resuming });
  return resuming;
}

/** Held-out blocks for the evaluation loss. */
export function evalBlocks(files: readonly string[], tok: WordPieceTokenizer, maxLength: number, count: number): MlmBlock[] {
  const out: MlmBlock[] = [];
  if (count === 0) return out;
  for (const blk of mlmBlocks(files, tok, { maxLength, holdoutEvery: 50, part: 'eval', shuffleBuffer: 0, seed: 0 })) {
    out.push(blk);
    if (out.length >= count) break;
  }
  return out;
}

/** MLM pretraining; see PretrainArgs. */
export async function pretrain(args: PretrainArgs, ctx: TaskContext = QUIET): Promise<PretrainResult> {
  return withOutLock(path.resolve(args.out), () => pretrainInFolder(args, ctx));
}

async function pretrainInFolder(args: PretrainArgs, ctx: TaskContext): Promise<PretrainResult> {
  const out = path.resolve(args.out);
  const s = mlmSettings(args);
  if (args.text.length === 0) throw new Error('--text needs at least one file or folder');
  const files = checkTextSources(args.text);
  for (const note of [...skippedLinkNotes(args.text), ...encodingNotes(args.text)]) ctx.emit({ type: 'log', message: `note: ${note}` });
  const resume = prepareRunOut(out, args.resume ?? 'auto', args.overwrite === true, args.text.map((t) => ['--text', t] as const));
  if (args.model && args.sinusoidalPositions) throw new SettingError('--sinusoidal-positions sets how new weights start; it does not apply when continuing from --model');
  const mm = prepareMlmModel({ ...(args.model ? { model: args.model } : {}), ...(args.preset ? { preset: args.preset } : {}), ...(args.vocab ? { vocab: args.vocab } : {}), ...(args.arch ? { arch: args.arch } : {}) }, s.seed, { sinusoidalBertPositions: args.sinusoidalPositions ?? false });
  const inherited = startingFingerprints(args.model); // read now, so a damaged one fails before training
  checkMaxLength(s.maxLength, [{ whose: "model's", config: mm.config }]);
  const lr = args.lr ?? defaultPretrainLearningRate(args.model !== undefined);
  const warmup = Math.round((args.warmupRatio ?? 0.06) * s.steps);
  const entries = textEntries(args.text, 'pretrain', args.textContainsPhi === true);
  const dropout = args.dropout ?? true;
  const settings = {
    ...s, lr, warmup, whole_word_mask: args.wholeWordMask ?? false, masking: '15% 80/10/10, dynamic',
    // Recorded only when not the default, so fingerprints of earlier runs still match.
    ...(dropout ? {} : { dropout: false }), ...(args.sinusoidalPositions ? { position_init: 'sinusoidal' } : {}),
  };
  const fingerprint = runFingerprint(settings, mm.origin, entries);
  const threads = args.threads ?? 2;
  const trainer = await Trainer.create(mm.config, mm.weights, {
    optimizer: { lr, weightDecay: 0.01, noDecay: hfNoDecay, maxGradNorm: 1, schedule: { kind: 'linear', warmupSteps: warmup, totalSteps: s.steps } },
    threads, seed: s.seed, dropout, mlmGather: true, ...(args.device !== undefined && { device: args.device }),
  });
  const where = { device: trainer.device, ...(trainer.fallbackReason !== undefined && { deviceNote: trainer.fallbackReason }) };
  if (where.deviceNote !== undefined) ctx.emit({ type: 'log', message: where.deviceNote });
  ctx.emit({ type: 'log', message: `pretrain: ${mm.origin} (${mm.config.numLayers}L-${mm.config.hiddenSize}), ${files.length} text file(s), ${s.steps} steps of ${s.batchSize}×${s.maxLength}` });
  let result: MlmLoopResult;
  try {
    result = await runMlmLoop(
      {
        step: (batch) => trainer.trainStep(batch),
        where,
        state: () => ({ weights: trainer.weights(), ...trainer.optimizerState() }),
        restore: (st) => trainer.restore(st),
      },
      { files, tok: mm.tokenizer, vocabSize: mm.config.vocabSize, maxLength: s.maxLength, batchSize: s.batchSize, steps: s.steps, wholeWord: args.wholeWordMask ?? false, seed: s.seed, holdoutEvery: 50, checkpointDir: path.join(out, 'checkpoint'), checkpointEvery: s.checkpointEvery, resume, fingerprint, ...(args.maxMinutes !== undefined ? { maxWallSec: args.maxMinutes * 60 } : {}) },
      ctx,
    );
  } finally {
    await trainer.release();
  }
  if (result.status !== 'completed') {
    ctx.emit({ type: 'log', message: `stopped at step ${result.steps}/${s.steps} (${result.status}); run the same command again to resume` });
    return { status: result.status, out, steps: result.steps };
  }
  const weights = trainer.weights();
  const evalLoss = await mlmEvalLoss(mm.config, weights, evalBlocks(files, mm.tokenizer, s.maxLength, s.evalBlocks), mm.tokenizer, { seed: s.seed, threads });
  // Continued pretraining keeps whatever the base's weights carry (unknown without a record).
  const vocabFrom = args.model ? { model: args.model, role: 'base model' } : { file: args.vocab ?? '' };
  const record = lineageRecord([...(args.model ? [startingPointEntry(args.model, 'base-model', 'continued from the weights', 'unknown', args.modelPhiStatus)] : []), ...entries], vocabularyRecord(mm.vocab, vocabFrom, mm.tokenizerSettings));
  const tail = result.losses.slice(-100);
  const metrics = {
    kind: 'pretrain', status: result.status, steps: result.steps, wall_time_sec: result.wallSec, epochs: result.epochs, blocks_per_epoch: result.blocksPerEpoch ?? null,
    mlm_train_loss_last100: tail.reduce((a, b) => a + b, 0) / Math.max(1, tail.length), mlm_eval_loss: evalLoss ?? null, mlm_eval_perplexity: evalLoss !== undefined ? Math.exp(evalLoss) : null,
    settings, model: { origin: mm.origin, architecture: `${mm.config.architecture} ${mm.config.numLayers}L-${mm.config.hiddenSize}` }, text_files: files.length,
    losses: result.losses.filter((_, i) => i % Math.max(1, Math.floor(result.losses.length / 500)) === 0), resumed_from_step: result.resumedFromStep ?? null, lineage: record,
  };
  const card = [
    `# Masked-LM model (${metrics.model.architecture})`, '',
    `Pretrained by \`benchtop pretrain\` from ${mm.origin}: ${result.steps} steps of ${s.batchSize}×${s.maxLength} pieces, lr ${lr}, ${settings.masking}${settings.whole_word_mask ? ', whole-word' : ''}${dropout ? '' : ', no dropout'}${args.sinusoidalPositions ? ', sinusoidal position init' : ''}.`,
    `Wall time ${(result.wallSec / 60).toFixed(1)} min. Held-out MLM loss ${evalLoss?.toFixed(4) ?? 'n/a'} (train, last 100 steps: ${metrics.mlm_train_loss_last100.toFixed(4)}).`, '',
    privacySection(record),
  ].join('\n');
  // Text declared as PHI leaves its fingerprints for the transfer check of distill-general, after
  // those the starting model recorded.
  const fingerprints =
    args.textContainsPhi === true ? { [FINGERPRINT_FILE]: textFingerprintBytes(files, inherited) }
    : inherited.length > 0 ? { [FINGERPRINT_FILE]: fingerprintBytes([], inherited) }
    : {};
  saveHfFolder(out, { config: mm.config, weights, vocab: mm.vocab, tokenizer: mm.tokenizerSettings, extraFiles: { 'metrics.json': `${JSON.stringify(metrics, null, 2)}\n`, 'lineage.json': `${JSON.stringify(record, null, 2)}\n`, 'README.md': card, ...fingerprints } });
  return { status: 'completed', out, steps: result.steps, ...(evalLoss !== undefined ? { evalLoss } : {}), metrics };
}
