// `train`: fine-tunes a NER or RE model end to end: reads the data (any importable format or
// masked RE TSV, or documents passed in memory by the app), prepares the model (folder or
// preset), encodes, runs the resumable loop in `<out>/checkpoint/`, evaluates the kept model on
// an optional test set, and writes `<out>` as a Hugging Face folder with metrics.json and
// training_card.md (atomically, replacing the checkpoint), and the word fingerprints of its
// training, dev and test documents (private-fingerprints.bin: hashes, never text), which metrics.json
// names only by file, so that `distill` still knows a re-formatted copy of them once the files
// are moved or deleted (engine/distill/fingerprint-file.ts). Runs in the calling thread: use
// startTrain (jobs.ts) off the UI event loop.

import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import type { Document, FormatIssue } from '../formats/types.ts';
import type { MetricsJson } from '../metrics/report.ts';
import { toMetricsJson } from '../metrics/report.ts';
import type { Architecture } from '../model/config.ts';
import { checkMaxLength } from './setting-error.ts';
import { hasCheckpoint } from './checkpoint.ts';
import type { LineageRecord } from '../distill/lineage.ts';
import { vocabularyRecord } from '../distill/vocab-origin.ts';
import { automaticEpochs, automaticEpochsNote, defaultLearningRate, positive } from './train-defaults.ts';
import { unlessCancelled } from './batching.ts';
import { checkLearningRate } from '../train/step-guard.ts';
import { FINGERPRINT_FILE, fingerprintBytes, startingFingerprints, textsDigest } from '../distill/fingerprint-file.ts';
import type { PhiStatus } from '../store/models.ts';
import {
  checkOutApartFromData,
  readDataPart,
  trainingData,
  type DataSource,
  type InputFormat,
  type ReInput,
} from './data-load.ts';
import { QUIET, type TaskContext } from './events.ts';
import { type Device, MAX_THREADS } from '../runtime/session.ts';
import { createPredictor } from './inference.ts';
import { entityTypes, iob2Labels, typesOfLabels } from './ner-data.ts';
import { encodeNerTraining, evaluateEntities, predictEntities } from './ner-task.ts';
import { prepareModel, shareName, withTaskMeta, type TaskMeta } from './model-setup.ts';
import {
  classifyExamples,
  encodeReTraining,
  reExamples,
  reTrainingSet,
  scoreExamples,
  type ReModelView,
} from './re-task.ts';
import { checkNotFile, checkOutFolder, withOutLock } from '../io/out-folder.ts';
import { nerGoldIssues, noDocumentsError, reGoldIssues, requireGold, requireReGold, sameAsTraining } from './gold.ts';
import { runTrainLoop, type LoopOptions } from './train-loop.ts';
import { historyRows, trainingCard, type TrainMetrics } from './train-report.ts';

/** Arguments of a training run (CLI flags map one to one). */
export interface TrainArgs {
  task: 'ner' | 're';
  out: string;
  /** Training data: a file or folder, or `trainDocuments` (exactly one of the two). */
  train?: string;
  dev?: string;
  /** Training documents in memory (e.g. read from the workspace by the app). */
  trainDocuments?: Document[];
  /** Dev documents in memory (instead of `dev`). */
  devDocuments?: Document[];
  /** Names the in-memory data (e.g. the dataset names) in metrics.json and the card. */
  dataLabel?: string;
  test?: string;
  model?: string;
  /** What to call the starting model in the card and metrics (the workbench: its library name, not its id folder). */
  modelLabel?: string;
  /**
   * The PHI status `model`'s weights carry by its folder's own record (the command line reads it:
   * cli/folder-record.ts), kept in metrics.json so an export of the result can say it.
   */
  modelPhiStatus?: PhiStatus;
  preset?: string;
  vocab?: string;
  arch?: Architecture;
  cased?: boolean;
  format?: InputFormat;
  /** Passes over the training data; without it, automaticEpochs. */
  epochs?: number;
  batchSize?: number;
  lr?: number;
  maxLength?: number;
  stride?: number;
  seed?: number;
  warmupRatio?: number;
  weightDecay?: number;
  patience?: number;
  evalEvery?: number;
  checkpointEvery?: number;
  threads?: number;
  /** Where the training steps run (default the CPU; WebGPU falls back with a reason). */
  device?: Device;
  dropout?: boolean;
  negativeLabel?: string;
  maxSteps?: number;
  maxMinutes?: number;
  /** auto (default): resume when `<out>/checkpoint` exists; require: fail without one; never: start over. */
  resume?: 'auto' | 'require' | 'never';
  overwrite?: boolean;
  saveOnCancel?: boolean;
  /**
   * The installation's resources/ folder (the app's, beside app.asar when packaged), whose
   * vocabularies the model's record names as shipped; default: the repository's (vocab-origin.ts).
   */
  resourcesDir?: string;
}

/** Result of `train`. */
export interface TrainResult {
  status: TrainMetrics['status'];
  out: string;
  /** Present when the run stopped before finishing (cancelled): resume from here. */
  checkpointDir?: string;
  metrics?: TrainMetrics;
  /** Distillation: where the weights came from (teacher, transfer text, private data + alpha). */
  lineage?: LineageRecord;
  /** Distillation: the PHI status the lineage implies. */
  phiStatus?: PhiStatus;
  /**
   * The texts whose fingerprints were written beside the model (textsDigest of
   * fingerprint-file.ts), when they were: the workbench keeps that file rather than hash them again.
   */
  fingerprinted?: string;
}

/**
 * Checks `<out>` and decides whether to resume, or to discard its checkpoint (`--no-resume`:
 * done by the caller once everything else is checked, so a mistyped flag keeps it).
 */
function prepareOut(out: string, ckpt: string, args: TrainArgs): { resume: boolean; discard: boolean } {
  checkNotFile(out);
  checkOutApartFromData(args.out, [['training', args.train], ['dev', args.dev], ['test', args.test]]);
  const mode = args.resume ?? 'auto';
  const has = hasCheckpoint(ckpt);
  if (mode === 'require' && !has)
    throw new Error(`${out}: no checkpoint to resume from (expected ${ckpt}/state.json)`);
  const resuming = has && mode !== 'never';
  checkOutFolder(out, { ...(args.overwrite !== undefined && { overwrite: args.overwrite }), resuming });
  return { resume: resuming, discard: has && mode === 'never' };
}

function report(issues: readonly FormatIssue[], ctx: TaskContext): void {
  for (const issue of issues) ctx.emit({ type: 'issue', issue });
}

/** Trains a NER or RE model; see TrainArgs. Emits progress, eval, checkpoint, issue and log events. */
export async function train(args: TrainArgs, ctx: TaskContext = QUIET): Promise<TrainResult> {
  const out = path.resolve(args.out);
  const done = await unlessCancelled(withOutLock(out, () => trainInFolder(args, ctx)));
  if (done) return done;
  // Cancelled while the data was read (between files, or a PDF's pages): stopped, as when
  // cancelled while it is encoded, with the checkpoint of an earlier run of this command, if any.
  const ckpt = path.join(out, 'checkpoint');
  return { status: 'cancelled', out, ...(hasCheckpoint(ckpt) && { checkpointDir: ckpt }) };
}

async function trainInFolder(args: TrainArgs, ctx: TaskContext): Promise<TrainResult> {
  const data = trainingData(args);
  const out = path.resolve(args.out);
  const ckpt = path.join(out, 'checkpoint');
  // Seeds are 32-bit: a larger one would give the model of its value modulo 2^32.
  const seed = positive('seed', args.seed, 42, true, { max: 0xffffffff });
  // [CLS] and [SEP] take two positions: at least one is left for a word piece.
  const maxLength = positive('max-length', args.maxLength, 128, true, { min: 3 });
  const batchSize = positive('batch-size', args.batchSize, 32, true, { min: 1 });
  const threads = positive('threads', args.threads, 2, true, { min: 1, max: MAX_THREADS });
  // Every number is checked before the data or the model is read: a typo fails at once.
  const hp = {
    // Without --epochs it depends on the amount of data (automaticEpochs), known once encoded.
    epochs: args.epochs === undefined ? undefined : positive('epochs', args.epochs, 0, true, { min: 1 }),
    // Without --lr it depends on the model's size (defaultLearningRate), known once it is read.
    lr: checkLearningRate(args.lr),
    warmup_ratio: positive('warmup-ratio', args.warmupRatio, 0.1, false, { max: 1 }),
    weight_decay: positive('weight-decay', args.weightDecay, 0.01, false),
    patience: positive('patience', args.patience, 3),
    eval_every: positive('eval-every', args.evalEvery, 0),
    checkpoint_every: positive('checkpoint-every', args.checkpointEvery, 500),
    ...(args.maxSteps !== undefined ? { max_steps: positive('max-steps', args.maxSteps, 0, true, { min: 1 }) } : {}),
  };
  const maxWallSec = args.maxMinutes !== undefined ? positive('max-minutes', args.maxMinutes, 0, false, { positive: true }) * 60 : undefined;
  const loadOpts = { ...(args.format ? { format: args.format } : {}), isCancelled: () => ctx.isCancelled() };
  const { resume, discard } = prepareOut(out, ckpt, args);
  const issues: FormatIssue[] = [];
  const note = (list: readonly FormatIssue[]): void => {
    issues.push(...list);
    report(list, ctx);
  };
  const files: { train: DataSource[]; dev: DataSource[]; test: DataSource[] } = { train: [], dev: [], test: [] };

  // Data first (its labels decide the head), then the model, then encoding.
  let dataLabels: string[];
  let nerDocs: { train: Document[]; dev?: Document[] } | undefined;
  let reSet: ReturnType<typeof reTrainingSet> | undefined;
  const trPart = await readDataPart(data.train, args.task, loadOpts);
  const tr = trPart.input;
  note(tr.issues);
  files.train = trPart.sources;
  const dvPart = data.dev ? await readDataPart(data.dev, args.task, loadOpts) : undefined;
  const dv = dvPart?.input;
  if (dvPart) {
    note(dvPart.input.issues);
    files.dev = dvPart.sources;
    requireGold(dvPart.input, args.task, args.dev ?? 'dev documents');
  }
  // Test data is read and checked now: a mistyped --test path, or a file without annotations,
  // used to fail the run only after all its training steps.
  const tePart = args.test !== undefined ? await readDataPart({ path: args.test }, args.task, loadOpts) : undefined;
  if (tePart) {
    note(tePart.input.issues);
    files.test = tePart.sources;
    requireGold(tePart.input, args.task, args.test as string);
  }
  note([...sameAsTraining(files.train, files.dev, 'dev'), ...sameAsTraining(files.train, files.test, 'test')]);
  if (args.task === 'ner') {
    const docsOf = (input: ReInput): Document[] =>
      input.kind === 'documents' ? input.documents : [];
    if (docsOf(tr).length === 0) throw noDocumentsError(data.name, tr.issues);
    const types = entityTypes(docsOf(tr));
    if (types.length === 0)
      throw new Error(`${data.name}: the documents have no entity annotations to learn from`);
    dataLabels = iob2Labels(types);
    nerDocs = { train: docsOf(tr), ...(dv ? { dev: docsOf(dv) } : {}) };
  } else {
    if (tr.kind === 'documents' && tr.documents.length === 0) throw noDocumentsError(data.name, tr.issues);
    reSet = reTrainingSet(tr, dv, {
      seed,
      source: data.name,
      devSource: args.dev ?? 'dev documents',
      ...(args.negativeLabel !== undefined ? { negativeLabel: args.negativeLabel } : {}),
    });
    note(reSet.issues);
    if (reSet.train.length === 0)
      throw new Error(`${data.name}: no training examples could be read`);
    dataLabels = reSet.labels;
  }
  const src = {
    ...(args.model ? { model: args.model } : {}),
    ...(args.model && args.modelLabel ? { modelLabel: args.modelLabel } : {}),
    ...(args.preset ? { preset: args.preset } : {}),
    ...(args.vocab ? { vocab: args.vocab } : {}),
    ...(args.arch ? { arch: args.arch } : {}),
    ...(args.cased ? { cased: true } : {}),
  };
  const pm = prepareModel(
    src,
    args.task === 'ner' ? 'token-classification' : 'sequence-classification',
    dataLabels,
    seed,
  );
  // Read now: a damaged record fails the run before it trains, not when it saves.
  const inherited = startingFingerprints(args.model);
  checkMaxLength(maxLength, [{ whose: "model's", config: pm.config }]);
  const labels = pm.config.labels;
  let meta: TaskMeta;
  let trainEx;
  let evaluate;
  let counts: Record<string, number>;
  let split: string;
  let reView: ReModelView | undefined;
  const devName = args.dev ?? 'dev documents';
  if (nerDocs) {
    typesOfLabels(labels);
    // Gold of dev and test data the model cannot find is named now, as `eval` names it.
    if (dv?.kind === 'documents') note(nerGoldIssues(dv.documents, labels, devName));
    if (tePart?.input.kind === 'documents') note(nerGoldIssues(tePart.input.documents, labels, args.test as string));
    // The overlap stays below a window's word pieces (max-length − 2), or windows could not advance.
    const stride = positive('stride', args.stride, Math.floor((maxLength - 2) / 4), true, { max: maxLength - 3 });
    const view = { labels, tokenizer: pm.tokenizer, maxLength, stride };
    const enc = encodeNerTraining(nerDocs.train, nerDocs.dev, view, {
      seed,
      batchSize,
      source: data.name,
      devSource: devName,
    });
    note(enc.issues);
    ({ counts, split, evaluate } = enc);
    trainEx = enc.train;
    meta = { task: 'ner', maxLength, stride };
  } else {
    const set = reSet as NonNullable<typeof reSet>;
    reView = {
      labels,
      tokenizer: pm.tokenizer,
      maxLength,
      negativeLabel: set.negativeLabel,
      entityPairs: set.entityPairs,
    };
    const isCancelled = (): boolean => ctx.isCancelled();
    if (dv) note(await reGoldIssues(dv, set.dev ?? [], reView, devName, { labels: false, isCancelled }));
    if (tePart) note(await reGoldIssues(tePart.input, reExamples(tePart.input, set.entityPairs, set.negativeLabel), reView, args.test as string, { isCancelled }));
    // Encoding thousands of candidate pairs takes a while: Cancel stops it as it stops a step.
    const enc = await encodeReTraining(set, reView, { source: data.name, batchSize }, ctx);
    if (!enc) return { status: 'cancelled', out, ...(hasCheckpoint(ckpt) && { checkpointDir: ckpt }) };
    ({ train: trainEx, evaluate } = enc);
    counts = { train_examples: set.train.length, dev_examples: set.dev?.length ?? 0 };
    for (const l of labels)
      counts[`train_${l}`] = set.train.filter((e) => (e.label ?? set.negativeLabel) === l).length;
    split = set.split;
    meta = {
      task: 're',
      maxLength,
      negativeLabel: set.negativeLabel,
      entityPairs: set.entityPairs,
    };
  }
  const config = withTaskMeta(pm.config, meta);
  const settings = {
    task: args.task,
    epochs: hp.epochs ?? automaticEpochs(trainEx.length, batchSize),
    ...(hp.epochs === undefined && { epochs_automatic: true }),
    batch_size: batchSize,
    lr: hp.lr ?? defaultLearningRate(args.model !== undefined, pm.config.hiddenSize),
    warmup_ratio: hp.warmup_ratio,
    weight_decay: hp.weight_decay,
    max_grad_norm: 1,
    max_length: maxLength,
    ...(meta.stride !== undefined ? { stride: meta.stride } : {}),
    seed,
    dropout: args.dropout ?? true,
    patience: hp.patience,
    eval_every: hp.eval_every,
    checkpoint_every: hp.checkpoint_every,
    ...(hp.max_steps !== undefined ? { max_steps: hp.max_steps } : {}),
    negative_label: meta.negativeLabel ?? null,
    labels,
  };
  const fingerprint = createHash('sha256')
    .update(
      JSON.stringify({
        settings,
        // The folder, not the display label: a run resumes even if its base's library name changed.
        origin: args.model !== undefined ? shareName(args.model) : pm.origin,
        files: [files.train, files.dev].map((l) => l.map((f) => f.sha256)),
        ...(args.trainDocuments || args.devDocuments
          ? { documents: [data.train, data.dev].map((p) => (p && 'hash' in p ? p.hash : null)) }
          : {}),
      }),
    )
    .digest('hex');
  const loopOpts: LoopOptions = {
    epochs: settings.epochs,
    batchSize,
    lr: settings.lr,
    warmupRatio: settings.warmup_ratio,
    weightDecay: settings.weight_decay,
    maxGradNorm: 1,
    patience: settings.patience,
    evalEvery: settings.eval_every,
    checkpointEvery: settings.checkpoint_every,
    seed,
    dropout: settings.dropout,
    threads,
    ...(args.device !== undefined && { device: args.device }),
    checkpointDir: ckpt,
    resume,
    fingerprint,
    saveOnCancel: args.saveOnCancel ?? true,
    ...(args.maxSteps !== undefined ? { maxSteps: settings.max_steps as number } : {}),
    ...(maxWallSec !== undefined ? { maxWallSec } : {}),
  };
  ctx.emit({
    type: 'log',
    message: `${args.task}: ${trainEx.length} training inputs, labels ${labels.join(' ')}; dev: ${split}; model ${pm.origin}`,
  });
  if (hp.epochs === undefined && settings.epochs > 3) ctx.emit({ type: 'log', message: automaticEpochsNote(settings.epochs, trainEx.length, batchSize) });
  const bestDir = path.join(ckpt, 'best');
  // The texts the model learned from and was chosen on, in the workbench's order (fingerprint-file.ts),
  // then the test documents: private notes held beside the model too, which transfer text must not repeat.
  const texts = (i?: ReInput): string[] => (i === undefined ? [] : i.kind === 'documents' ? i.documents.map((d) => d.text) : i.examples.map((e) => e.text));
  const seenTexts = (): string[] => [...texts(tr), ...texts(dv), ...texts(tePart?.input)];
  let seenBytes: Buffer | undefined;
  const seen = (): Buffer => (seenBytes ??= fingerprintBytes(seenTexts(), inherited));
  if (discard) rmSync(ckpt, { recursive: true, force: true });
  const result = await runTrainLoop(
    config,
    pm.weights,
    trainEx,
    pm.tokenizer.padId,
    loopOpts,
    {
      ...(evaluate ? { evaluate } : {}),
      // The kept weights are a model a stopped run leaves: they carry the fingerprints too.
      saveBest: (weights) => saveHfFolder(bestDir, { config, weights, vocab: pm.vocab, tokenizer: pm.tokenizerSettings, extraFiles: { [FINGERPRINT_FILE]: seen() } }),
      loadBest: () => loadHfFolder(bestDir).weights,
    },
    ctx,
  );
  if (result.status === 'cancelled') return { status: 'cancelled', out, checkpointDir: ckpt };

  let test: MetricsJson | null = null;
  if (tePart) {
    const testName = args.test as string;
    const te = tePart.input;
    const predictor = await createPredictor(config, result.weights, threads, args.device !== undefined ? { device: args.device } : {});
    try {
      if (te.kind === 'documents' && args.task === 'ner') {
        const pred = await predictEntities(
          te.documents,
          { labels, tokenizer: pm.tokenizer, maxLength, stride: meta.stride ?? 32 },
          predictor.logits,
          { batchSize },
          ctx,
        );
        test = toMetricsJson(evaluateEntities(te.documents, pred.entities));
      } else {
        const view = reView as ReModelView;
        const ex = reExamples(te, view.entityPairs, view.negativeLabel);
        requireReGold(ex.length, testName);
        const c = await classifyExamples(ex, view, predictor.logits, { batchSize }, ctx);
        test = toMetricsJson(scoreExamples(ex, c.labels, c.probs, view));
      }
    } finally {
      await predictor.release();
    }
  }
  let parameters = 0;
  for (const t of result.weights.values()) parameters += t.data.length;
  const metrics: TrainMetrics = {
    task: args.task,
    status: result.status,
    dev: result.best?.dev ?? null,
    test,
    best: result.best
      ? { step: result.best.step, epoch: result.best.epoch, dev_f1: result.best.devF1 }
      : null,
    history: historyRows(result.history),
    losses: result.losses,
    steps: result.steps,
    total_steps: result.totalSteps,
    wall_time_sec: result.wallSec,
    resumed_from_step: result.resumedFromStep ?? null,
    config: settings,
    model: {
      origin: pm.origin,
      architecture: `${config.architecture} ${config.numLayers}L-${config.hiddenSize}`,
      parameters,
      labels,
      new_parameters: pm.newParameters.length,
      vocabulary: vocabularyRecord(pm.vocab, args.model !== undefined ? { model: args.model, role: 'base model' } : { file: args.vocab ?? '' }, pm.tokenizerSettings, args.resourcesDir),
      ...(args.model !== undefined && args.modelPhiStatus !== undefined && { phi_status: args.modelPhiStatus }),
    },
    data: { ...files, split, counts },
    issues: {
      errors: issues.filter((i) => i.severity === 'error').length,
      warnings: issues.filter((i) => i.severity === 'warning').length,
    },
  };
  saveHfFolder(out, {
    config,
    weights: result.weights,
    vocab: pm.vocab,
    tokenizer: pm.tokenizerSettings,
    extraFiles: {
      // Written with the model, in one rename: a folder never has one without the other.
      [FINGERPRINT_FILE]: seen(),
      'metrics.json': `${JSON.stringify(metrics, null, 2)}\n`,
      // The card names its base by its library name, as it does above; the record by folder.
      'training_card.md': trainingCard(metrics, args.model !== undefined && args.modelLabel !== undefined ? `the base model ${args.modelLabel}` : undefined),
    },
  });
  return { status: result.status, out, metrics, fingerprinted: textsDigest(seenTexts()) };
}
