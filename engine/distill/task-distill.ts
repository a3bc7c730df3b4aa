// `distill --task ner|re`: task-specific distillation without PHI. The teacher (any NER/RE model
// Benchtop runs) labels transfer text once (cached on disk, streamed); the student (a folder, a
// random preset, or teacher layers) learns from the softened outputs: KL × T², optional
// hidden-state alignment, and optionally private labelled batches (a fraction alpha of the steps,
// recorded in the lineage). Resumable; writes a task model folder with metrics, lineage and card.
// `distill` is the same run reporting a TrainResult (what the app's jobs return).

import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { findWeights, weightsFiles } from '../checkpoints/shards.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import type { Document } from '../formats/types.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import type { Architecture } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { hfNoDecay } from '../optim/adamw.ts';
import { bucketBatches, makeBatch, unlessCancelled, type Encoded } from '../tasks/batching.ts';
import { checkpointStep, hasCheckpoint, loadCheckpoint, saveCheckpoint, type LoopState } from '../tasks/checkpoint.ts';
import { checkDocuments, loadDocuments, loadReInput, readDataPart, workspaceData, type ReInput } from '../tasks/data-load.ts';
import { noDocumentsError, requireGold } from '../tasks/gold.ts';
import { QUIET, type TaskContext } from '../tasks/events.ts';
import { isGeneric, loadTaskModel, makeTokenizer, prepareModel, shareName, withTaskMeta, type TaskMeta } from '../tasks/model-setup.ts';
import type { TrainResult } from '../tasks/train-task.ts';
import { encodeReTraining, reExamples } from '../tasks/re-task.ts';
import { createRng, mixSeed } from '../random.ts';
import { evaluate } from '../tasks/predict-task.ts';
import { defaultLearningRate } from '../tasks/train-defaults.ts';
import { checkCacheApartFromTransfer, prepareDistillOut } from './distill-out.ts';
import { buildDistillTrainGraph } from './graph.ts';
import { hashFiles, lineageRecord, privacySection, privateDocumentsEntry, privateEntry, startingPointEntry, teacherEntry, type LineageEntry, type LineageRecord } from './lineage.ts';
import type { PhiStatus } from '../store/models.ts';
import { encodePrivateNer } from './private-ner.ts';
import { feedsOf, transferFeeds } from './step-feeds.ts';
import { DistillRunner } from './step-runner.ts';
import { everyOtherLayer, parseLayerMap, studentFromTeacher, studentPresetConfig } from './student-init.ts';
import { alignNer, alignRe, createTeacherLabeller, labelMapping, markPair, sameTokenization, type AlignedItem } from './task-transfer.ts';
import { buildTeacherCache, checkCacheFolder, openTeacherCache } from './teacher-cache.ts';
import { buildTransferCorpus, parseTransfer } from './transfer.ts';
import { checkTransferNotPrivate, privateFileTexts } from './transfer-guard.ts';
import { vocabSha256, vocabularyRecord } from './vocab-origin.ts';
import { FINGERPRINT_FILE, fingerprintBytes, startingFingerprints, studentStartingModel, textsDigest } from './fingerprint-file.ts';
import { encodingNotes, skippedLinkNotes } from '../pretrain/text-files.ts';
import { withOutLock } from '../io/out-folder.ts';
import { type Device, checkThreads } from '../runtime/session.ts';
import { checkLearningRate } from '../train/step-guard.ts';
import { checkReMaxLength } from '../tasks/re-length.ts';
import { checkMaxLength, SettingError } from '../tasks/setting-error.ts';

/** Arguments of `distill` (CLI flags map one to one). */
export interface DistillArgs {
  task: 'ner' | 're';
  teacher: string;
  student?: string;
  studentPreset?: string;
  /** Vocabulary file of a preset student (default: the teacher's). */
  vocab?: string;
  arch?: Architecture;
  /** Initialise the student from teacher layers (widths must match); `layerMap` picks them. */
  initFromTeacher?: boolean;
  layerMap?: string;
  /** Transfer sources: general | random | random-shuffle | PATH, comma-separated or one per item. */
  transfer: string | string[];
  out: string;
  temperature?: number;
  alpha?: number;
  privateData?: string;
  /** Private labelled documents in memory (instead of `privateData`). */
  privateDocuments?: Document[];
  /** The teacher's PHI status when the caller knows it (the workbench library's); else its lineage.json decides. */
  teacherPhiStatus?: PhiStatus;
  /** The same for the `student` folder the run starts from. */
  studentPhiStatus?: PhiStatus;
  /** Names the private documents (e.g. the dataset names) in the lineage. */
  dataLabel?: string;
  /** sha256 (hex, of the UTF-8 text) of private texts no transfer file may be (e.g. PHI documents). */
  privateSha256?: string[];
  steps?: number;
  batchSize?: number;
  lr?: number;
  maxLength?: number;
  /** Hidden-state alignment of the last layers (needs the same tokenization). */
  hidden?: 'cosine' | 'mse';
  hiddenWeight?: number;
  /** Sentences per transfer source (default steps × batch size). */
  maxPerSource?: number;
  cacheDir?: string;
  test?: string;
  seed?: number;
  threads?: number;
  /** Where the teacher labels and the student trains (default the CPU; WebGPU falls back with a reason). */
  device?: Device;
  maxMinutes?: number;
  resume?: 'auto' | 'never';
  /** Replace a non-empty `out` (without it, only an empty folder or this run's own checkpoint is accepted). */
  overwrite?: boolean;
  /** Test hook: the WordNet reader. */
  wordNet?: () => string[];
  /**
   * The installation's resources/ folder (the app's, beside app.asar when packaged), whose
   * vocabularies the model's record names as shipped; default: the repository's (vocab-origin.ts).
   */
  resourcesDir?: string;
}

/** What `distill` did. */
export interface DistillResult {
  status: 'completed' | 'time-limit' | 'cancelled';
  out: string;
  steps: number;
  metrics?: Record<string, unknown>;
  /** Present when the run stopped early: the same arguments resume from here. */
  checkpointDir?: string;
  /** Present when completed. */
  lineage?: LineageRecord;
  /** Present when the private documents' fingerprints were written beside the student (textsDigest). */
  fingerprinted?: string;
}

function num(name: string, v: number | undefined, def: number, min: number, max = Infinity): number {
  const x = v ?? def;
  if (!Number.isFinite(x) || x < min || x > max) throw new Error(`--${name} must be between ${min} and ${max}, got ${x}`);
  return x;
}

/** Task-specific distillation; see DistillArgs. */
export async function distillTask(args: DistillArgs, ctx: TaskContext = QUIET): Promise<DistillResult> {
  return withOutLock(path.resolve(args.out), () => distillTaskInFolder(args, ctx));
}

async function distillTaskInFolder(args: DistillArgs, ctx: TaskContext): Promise<DistillResult> {
  const out = path.resolve(args.out);
  const seed = num('seed', args.seed, 42, 0);
  const steps = num('steps', args.steps, 2000, 1);
  const batchSize = num('batch-size', args.batchSize, 32, 1);
  const T = num('temperature', args.temperature, 2, 0.05);
  const alpha = num('alpha', args.alpha, 0, 0, 1);
  const threads = checkThreads(args.threads ?? 2);
  checkLearningRate(args.lr);
  if (args.privateData !== undefined && args.privateDocuments !== undefined) throw new Error('give either privateData (a file or folder) or privateDocuments, not both');
  const privateDocs = args.privateDocuments !== undefined ? checkDocuments(args.privateDocuments, 'privateDocuments') : undefined;
  const privateName = args.privateData ?? (args.dataLabel !== undefined ? `private documents (${args.dataLabel})` : 'private documents');
  if (alpha > 0 && !args.privateData && !privateDocs) throw new SettingError('--alpha needs --private-data FILE (the private labelled set to mix in)');
  if (alpha === 0 && (args.privateData !== undefined || (privateDocs?.length ?? 0) > 0))
    throw new SettingError('--private-data needs --alpha A (0 < A < 1: the share of steps on the private set); without it the private set would be ignored');
  if (args.vocab !== undefined && (args.student || args.initFromTeacher)) throw new SettingError('--vocab sets the vocabulary of a preset student; a student folder or teacher layers keep their own');
  if (alpha === 1) throw new Error('--alpha 1 would train on private data only; that is fine-tuning, not distillation (use `benchtop train`)');
  const sources = parseTransfer(args.transfer);
  for (const s of sources) if (s.kind === 'path' && !statSync(s.path, { throwIfNoEntry: false })) throw new Error(`${s.path}: no such file or folder`);
  // A mistyped --test used to fail the command after the whole run (with the student saved).
  if (args.test !== undefined && !statSync(args.test, { throwIfNoEntry: false })) throw new Error(`${args.test}: no such file or folder`);
  // Read and checked now, as train's: a file that cannot be scored failed the command only after
  // every step (the student saved without its score).
  if (args.test !== undefined) requireGold((await readDataPart({ path: args.test }, args.task, {})).input, args.task, args.test);
  if (args.cacheDir !== undefined) checkCacheFolder(path.resolve(args.cacheDir));
  const paths = sources.flatMap((s) => (s.kind === 'path' ? [s.path] : []));
  if (args.cacheDir !== undefined) checkCacheApartFromTransfer(args.cacheDir, paths);
  for (const note of [...skippedLinkNotes(paths), ...encodingNotes(paths)]) ctx.emit({ type: 'log', message: `note: ${note}` });
  const privateData = args.privateData !== undefined ? { privateData: args.privateData } : {};
  const privateTexts = paths.length === 0 ? [] : [...(await privateFileTexts({ teacher: args.teacher, ...privateData })), ...(privateDocs ?? []).map((d, i) => ({ name: `document ${i + 1} of the ${privateName}`, text: d.text }))];
  for (const w of checkTransferNotPrivate(paths, { teacher: args.teacher, ...privateData, ...(args.privateSha256 && { privateSha256: args.privateSha256 }), privateTexts })) ctx.emit({ type: 'log', message: `warning: ${w}` });
  const data = [...paths.map((p) => ['--transfer', p] as const), ['--private-data', args.privateData], ['--test', args.test]] as const;
  const resume = prepareDistillOut(out, args.teacher, args.resume ?? 'auto', args.overwrite === true, data);
  const ckptDir = path.join(out, 'checkpoint');
  const teacher = loadTaskModel(args.teacher, args.task);
  // Recorded now, not when the run ends: a teacher deleted or replaced meanwhile was recorded as
  // "no weights file found" (or as the other model, with its PHI status) in the student's lineage.
  const teacherRecord = teacherEntry(args.teacher, true, args.teacherPhiStatus);
  const negative = teacher.meta.negativeLabel ?? 'false';
  const maxLength = num('max-length', args.maxLength, teacher.meta.maxLength, 8, 512);
  const task = args.task === 'ner' ? 'token-classification' : 'sequence-classification';

  // Student: folder, preset (random), or teacher layers.
  // A student whose weights are a model's keeps the fingerprints recorded beside it (read now).
  const inherited = startingFingerprints(studentStartingModel(args));
  // The weights the student starts from, when they are a model's (not a random init).
  let start: LineageEntry | undefined;
  let student: { config: typeof teacher.config; weights: Map<string, HostTensor>; vocab: string[]; tokenizerSettings: typeof teacher.tokenizerSettings; tokenizer: typeof teacher.tokenizer; origin: string };
  if (args.student) {
    const raw = loadHfFolder(args.student).config;
    const own = raw.task === task && !isGeneric(raw.labels);
    const pm = prepareModel({ model: args.student }, task, own ? raw.labels : teacher.config.labels, seed);
    student = { ...pm, origin: `folder ${shareName(args.student)}` };
    // Without a lineage record a folder's origin is unknown; the teacher's own is PHI-trained.
    const isTeacher = realpathSync(args.student) === realpathSync(args.teacher);
    start = startingPointEntry(args.student, 'base-model', 'weights', isTeacher ? 'trained-on-phi' : 'unknown', args.studentPhiStatus);
  } else {
    if (!args.studentPreset && !args.initFromTeacher) throw new Error('give --student DIR or --student-preset NAME');
    const own = args.vocab !== undefined ? readVocab(args.vocab) : undefined;
    const tokenizer = own ? makeTokenizer(own, teacher.tokenizerSettings) : teacher.tokenizer;
    const base = { ...teacher.config, vocabSize: tokenizer.size };
    const config = args.studentPreset ? studentPresetConfig(args.studentPreset, base, args.arch) : studentPresetConfig('half-teacher', base);
    let weights: Map<string, HostTensor>;
    let origin: string;
    if (args.initFromTeacher) {
      const map = args.layerMap ? parseLayerMap(args.layerMap, teacher.config.numLayers) : everyOtherLayer(teacher.config.numLayers, config.numLayers);
      weights = studentFromTeacher(teacher, config, map);
      origin = `teacher layers ${map.join(',')} of ${shareName(args.teacher)}`;
      // Copied teacher weights carry the teacher's training data (PHI unless it says otherwise).
      start = startingPointEntry(args.teacher, 'init', `layers ${map.join(',')}`, 'trained-on-phi', args.teacherPhiStatus);
    } else {
      weights = initWeights(config, seed);
      origin = `preset ${args.studentPreset ?? ''}${args.vocab !== undefined ? ` + ${shareName(args.vocab)}` : ''} (random init, seed ${seed})`;
    }
    student = { config, weights, vocab: own ?? teacher.vocab, tokenizerSettings: teacher.tokenizerSettings, tokenizer, origin };
  }
  const vocabFrom = args.student ? { model: args.student, role: 'student folder' } : args.vocab !== undefined ? { file: args.vocab } : { model: args.teacher, role: 'teacher model' };
  const vocabulary = vocabularyRecord(student.vocab, vocabFrom, student.tokenizerSettings, args.resourcesDir);
  // Without --max-length the teacher's own (which fits it) may not fit a student folder.
  checkMaxLength(maxLength, [{ whose: "teacher's", config: teacher.config }, { whose: "student's", config: student.config }], args.maxLength === undefined ? `the teacher's max length ${maxLength}` : undefined);
  const { groups, merged } = labelMapping(teacher.config.labels, student.config.labels, args.task === 'ner' ? 'O' : negative);
  if (merged.length > 0) ctx.emit({ type: 'log', message: `warning: teacher label(s) ${merged.join(', ')} are merged into "${args.task === 'ner' ? 'O' : negative}" for the student` });
  const same = sameTokenization({ vocab: teacher.vocab, tok: teacher.tokenizer }, { vocab: student.vocab, tok: student.tokenizer });
  if (!same) ctx.emit({ type: 'log', message: 'teacher and student tokenize differently: transfer text is tokenized per model and NER targets are aligned by word' });
  if (args.hidden && !same) throw new SettingError('hidden-state alignment needs teacher and student to share the tokenizer (positions must match); drop --hidden');

  const pairs = teacher.meta.entityPairs ?? [];
  if (args.task === 're' && pairs.length === 0) throw new Error(`${args.teacher}: the teacher records no entity-type pairs (benchtop.entity_pairs in config.json), so transfer sentences cannot be marked`);
  // Both markers of every transfer and private pair must fit, for the teacher and the student.
  if (args.task === 're') for (const tok of [teacher.tokenizer, student.tokenizer]) checkReMaxLength(tok, pairs, maxLength);

  // Transfer corpus → aligned items.
  const corpus = buildTransferCorpus(sources, { maxPerSource: args.maxPerSource ?? steps * batchSize, seed, ...(args.wordNet ? { wordNet: args.wordNet } : {}) });
  const rng = createRng(mixSeed(seed, 7));
  // Tokenizing tens of thousands of sentences takes seconds: Cancel (and Ctrl-C, which waits for the
  // event loop) stops it, as it stops private data's encoding below; a resumed run stays at its checkpoint's step.
  const stopped = (): DistillResult => (hasCheckpoint(ckptDir) ? { status: 'cancelled', out, steps: checkpointStep(ckptDir), checkpointDir: ckptDir } : { status: 'cancelled', out, steps: 0 });
  const items: AlignedItem[] = [];
  let free = performance.now();
  for (const s of corpus.sentences) {
    if (ctx.isCancelled()) return stopped();
    if (performance.now() - free > 50) {
      await new Promise((resolve) => setImmediate(resolve));
      free = performance.now();
    }
    if (args.task === 'ner') {
      const it = alignNer(s, teacher.tokenizer, student.tokenizer, maxLength);
      if (it) items.push(it);
    } else {
      const marked = markPair(s, pairs, rng);
      if (marked) items.push(alignRe(marked, teacher.tokenizer, student.tokenizer, maxLength));
    }
  }
  if (items.length < batchSize) throw new Error(`the transfer text gives ${items.length} usable sentence(s), fewer than one batch of ${batchSize}; add text`);
  const epochs = (steps * batchSize * (1 - alpha)) / items.length;
  if (epochs > 3) ctx.emit({ type: 'log', message: `warning: the transfer corpus has ${items.length} sentences; ${steps} steps × ${batchSize} will see each about ${epochs.toFixed(1)} times` });

  // Private labelled data (optional).
  let privateEx: Encoded[] = [];
  // Their texts' fingerprints stay with the student (fingerprint-file.ts), as a teacher's would.
  let privateSeen: string[] = [];
  let privateRecord: LineageEntry | undefined;
  if ((args.privateData || privateDocs) && alpha > 0) {
    if (args.task === 'ner') {
      // Reading a folder of notes file by file: Cancel stops it between files.
      const loaded = privateDocs ? { documents: privateDocs, issues: [] } : await unlessCancelled(loadDocuments(privateName, { isCancelled: () => ctx.isCancelled() }));
      if (!loaded) return stopped();
      const docs = loaded.documents;
      // Refused as train refuses them: files that could not be read said only "no labelled examples
      // could be read", and notes without annotations were mixed in (the student PHI-trained for no gain).
      if (docs.length === 0) throw noDocumentsError(privateName, loaded.issues, ', so there is nothing to mix in');
      if (!docs.some((d) => d.entities.length > 0)) throw new Error(`${privateName}: the documents have no entity annotations to learn from`);
      privateSeen = docs.map((d) => d.text);
      // Thousands of notes take seconds to encode: Cancel stops it between slices, as it stops RE pairs.
      const enc = await encodePrivateNer(docs, { labels: student.config.labels, tokenizer: student.tokenizer, maxLength, stride: teacher.meta.stride ?? 32 }, { seed, batchSize, source: privateName }, ctx);
      if (!enc) return stopped();
      privateEx = enc;
    } else {
      const input: ReInput | undefined = privateDocs ? { kind: 'documents', documents: privateDocs, issues: [], files: [] } : await unlessCancelled(loadReInput(privateName, { isCancelled: () => ctx.isCancelled() }));
      if (!input) return stopped();
      if ((input.kind === 'documents' ? input.documents : input.examples).length === 0) throw noDocumentsError(privateName, input.issues, ', so there is nothing to mix in');
      privateSeen = input.kind === 'documents' ? input.documents.map((d) => d.text) : input.examples.map((e) => e.text);
      // A note listing hundreds of entities gives thousands of pairs: Cancel stops their encoding.
      const view = { labels: student.config.labels, tokenizer: student.tokenizer, maxLength, negativeLabel: negative, entityPairs: pairs };
      const enc = await encodeReTraining({ train: reExamples(input, pairs, negative), dev: undefined }, view, { source: privateName, batchSize }, ctx);
      if (!enc) return stopped();
      privateEx = enc.train;
    }
    if (privateEx.length === 0) throw new Error(`${privateName}: no labelled examples could be read`);
    // Hashed now: the file deleted while the student trained failed the run at its end, all lost.
    if (args.privateData) privateRecord = privateEntry(args.privateData, alpha);
    ctx.emit({ type: 'log', message: `note: ${Math.round(alpha * 100)}% of the steps train on the private labelled data, so the student will be recorded as trained on PHI (lineage.json): treat it as PHI-bearing, like the teacher; leave the private data out for a student that learns from the transfer text only` });
  }

  // Teacher outputs, once, on disk.
  const hiddenLayers = args.hidden ? [teacher.config.numLayers] : [];
  // The teacher by the content of its weights, not its path and file times: the same teacher moved
  // or copied back refused the resume (and relabelled), and another one copied with its times kept
  // (cp -p) reused this one's outputs.
  const teacherHash = teacherRecord.sha256 ?? hashFiles(weightsFiles(findWeights(args.teacher)));
  const corpusHash = createHash('sha256').update(corpus.sentences.join('\n')).digest('hex');
  // The cache holds the student's token ids: its vocabulary itself, not only its size, decides
  // them (a --cache shared with a student of another vocabulary of the same size was reused).
  const tokenizerFp = { vocab: vocabSha256(student.vocab), lower: student.tokenizer.doLowerCase, strip: student.tokenizer.stripAccents, ...(student.tokenizerSettings.addedTokens !== undefined && { added: student.tokenizerSettings.addedTokens }) };
  const cacheFp = createHash('sha256').update(JSON.stringify({ teacherHash, corpusHash, ...tokenizerFp, labels: student.config.labels, maxLength, hiddenLayers, v: 1, ...(merged.length > 0 && { mergedAt: T }) })).digest('hex');
  const cacheDir = path.resolve(args.cacheDir ?? path.join(out, 'checkpoint', 'teacher-cache'));
  // As for training (train-defaults.ts): 5e-4 for a small student (the recipe measured in README
  // "Distillation without PHI", students of hidden size 128) and from random weights.
  const lr = args.lr ?? defaultLearningRate(Boolean(args.student || args.initFromTeacher), student.config.hiddenSize);
  const settings = { task: args.task, steps, batch_size: batchSize, lr, temperature: T, alpha, max_length: maxLength, hidden: args.hidden ?? null, seed, transfer: args.transfer };
  const fingerprint = createHash('sha256').update(JSON.stringify({ settings, cacheFp, origin: student.origin, priv: privateEx.length })).digest('hex');
  // A checkpoint of other settings or another teacher is refused before the teacher labels (minutes
  // for a large one), which also rebuilt over the checkpoint's own cache.
  const ck = resume && hasCheckpoint(ckptDir) ? loadCheckpoint(ckptDir, fingerprint) : undefined;
  const labeller = await createTeacherLabeller({ config: teacher.config, weights: teacher.weights, padId: teacher.tokenizer.padId }, { groups, temperature: T, tokenLevel: args.task === 'ner', hiddenLayers, threads, ...(args.device !== undefined && { device: args.device }) });
  ctx.emit({ type: 'log', message: `teacher outputs for ${items.length} transfer sentences → ${cacheDir}` });
  let cacheStatus: 'complete' | 'cancelled';
  try {
    cacheStatus = await buildTeacherCache(cacheDir, cacheFp, items.length, (from, to) => labeller.label(items.slice(from, to)), {
      onChunk: (done) => ctx.emit({ type: 'infer-progress', phase: args.task, done, total: items.length }),
      isCancelled: () => ctx.isCancelled(),
    });
  } finally {
    await labeller.release();
  }
  if (cacheStatus === 'cancelled') return { ...stopped(), checkpointDir: ckptDir };

  // Graphs: transfer (KL [+ hidden]) and private (gold labels).
  const optimizer = { lr, weightDecay: 0.01, noDecay: hfNoDecay, maxGradNorm: 1, schedule: { kind: 'linear' as const, warmupSteps: Math.round(0.06 * steps), totalSteps: steps } };
  const hidden = args.hidden ? { kind: args.hidden, weight: args.hiddenWeight ?? 1, teacherDim: teacher.config.hiddenSize, pairs: [[student.config.numLayers, teacher.config.numLayers]] as [number, number][] } : undefined;
  const specs = [buildDistillTrainGraph(student.config, { kl: 1, hard: 0, temperature: T, ...(hidden ? { hidden } : {}) }, { optimizer, seed, klMask: args.task === 'ner' })];
  if (privateEx.length > 0) specs.push(buildDistillTrainGraph(student.config, { kl: 0, hard: 1 }, { optimizer, seed }));
  const runner = await DistillRunner.create(specs, student.weights, { threads, seed, ...(args.device !== undefined && { device: args.device }) });
  const where = runner.where;
  if (where.deviceNote !== undefined) ctx.emit({ type: 'log', message: where.deviceNote });
  const cache = openTeacherCache(cacheDir);
  let state: Omit<LoopState, 'tensors'> = { version: 1, fingerprint, step: 0, epoch: 0, batchInEpoch: 0, epochSeed: mixSeed(seed, 0), bestF1: -1, bestStep: 0, badEvals: 0, history: [], losses: [], wallSec: 0 };
  let resumedFrom: number | undefined;
  if (ck) {
    state = ck.state;
    runner.restore({ step: state.step, ...ck.tensors });
    resumedFrom = state.step;
    ctx.emit({ type: 'log', message: `resuming from the checkpoint at step ${state.step}` });
  }
  const started = performance.now();
  const wall = (): number => state.wallSec + (performance.now() - started) / 1000;
  const save = (): void => {
    const st = runner.state();
    saveCheckpoint(ckptDir, { ...state, wallSec: wall() }, { weights: st.weights, m: st.m, v: st.v });
    ctx.emit({ type: 'checkpoint', step: state.step, dir: ckptDir });
  };
  const lengths = items.map((it) => it.studentIds.length);
  // Private batches: step s takes batch (s mod n) of the private epoch floor(s / n), seeded.
  const privMemo = new Map<number, number[][]>();
  const privBatch = (s: number): number[] => {
    const n = Math.ceil(privateEx.length / batchSize);
    const epoch = Math.floor(s / n);
    let order = privMemo.get(epoch);
    if (!order) {
      privMemo.clear();
      order = bucketBatches(privateEx.map((e) => e.ids.length), batchSize, createRng(mixSeed(seed, 99, epoch)));
      privMemo.set(epoch, order);
    }
    return order[s % order.length] as number[];
  };
  let status: DistillResult['status'] = 'completed';
  const termLog: Record<string, number[]> = {};
  let lastEmit = -Infinity;
  let emittedStep = state.step;
  let last: { loss: number; lr: number } | undefined;
  const emitProgress = (): void => {
    if (last === undefined) return;
    lastEmit = performance.now();
    emittedStep = state.step;
    const perSec = state.step / Math.max(1e-9, wall());
    // A time limit (per launch) ends the run sooner than its planned steps would.
    const limitLeft = args.maxMinutes === undefined ? Infinity : Math.max(0, args.maxMinutes * 60 - (performance.now() - started) / 1000);
    const etaSec = Math.min((steps - state.step) / Math.max(1e-9, perSec), limitLeft);
    ctx.emit({ type: 'progress', step: state.step, totalSteps: steps, epoch: state.epoch + 1, loss: last.loss, lr: last.lr, stepsPerSec: perSec, etaSec, ...where });
  };
  try {
    while (state.step < steps) {
      const batches = bucketBatches(lengths, batchSize, createRng(state.epochSeed));
      if (state.batchInEpoch >= batches.length) {
        state.epoch++;
        state.batchInEpoch = 0;
        state.epochSeed = mixSeed(seed, state.epoch);
        continue;
      }
      // session.run resolves without a macrotask: let a pending SIGINT handler (the CLI's Ctrl-C
      // sets the cancel flag from one) run, or Ctrl-C waits for the last step (train-loop.ts).
      await new Promise((resolve) => setImmediate(resolve));
      if (ctx.isCancelled() || (args.maxMinutes !== undefined && (performance.now() - started) / 60000 >= args.maxMinutes)) {
        save();
        status = ctx.isCancelled() ? 'cancelled' : 'time-limit';
        // The last steps trained, held back by the throttle, end the reported curve.
        if (emittedStep !== state.step) emitProgress();
        break;
      }
      const usePrivate = privateEx.length > 0 && createRng(mixSeed(seed, 5, state.step)).next() < alpha;
      let r;
      if (usePrivate) {
        const b = makeBatch(privateEx, privBatch(state.step), student.tokenizer.padId);
        r = await runner.run(1, feedsOf(b, specs[1]?.hasTokenTypes ?? false, { labels: { dtype: 'int64', dims: [b.batchSize, ...(args.task === 'ner' ? [b.seqLen] : [])], data: b.labels } }));
      } else {
        const idx = batches[state.batchInEpoch] as number[];
        r = await runner.run(0, transferFeeds(idx.map((i) => cache.read(i)), student.tokenizer.padId, specs[0]?.hasTokenTypes ?? false, args.task === 'ner', hiddenLayers.length > 0 ? teacher.config.numLayers : undefined));
        state.batchInEpoch++;
      }
      state.step = r.step;
      state.losses.push(r.loss);
      for (const [k, v] of Object.entries(r.terms)) (termLog[k] ??= []).push(v);
      last = { loss: r.loss, lr: r.lr };
      if (performance.now() - lastEmit > 1000 || state.step === steps) emitProgress();
      if (state.step % 200 === 0 && state.step < steps) save();
    }
  } finally {
    cache.close();
    await runner.release();
  }
  if (status !== 'completed') {
    ctx.emit({ type: 'log', message: `stopped at step ${state.step}/${steps} (${status}); run the same command again to resume` });
    return { status, out, steps: state.step, checkpointDir: ckptDir };
  }

  const entries: LineageEntry[] = [
    teacherRecord, ...(start ? [start] : []),
    ...corpus.sources.map((s) => ({ kind: 'distill-transfer' as const, source: s.description, ...(s.sha256 !== undefined && { sha256: s.sha256 }), containsPhi: false, gradients: true })),
    ...(privateRecord ? [privateRecord] : []),
    ...(privateEx.length > 0 && privateDocs ? [privateDocumentsEntry(workspaceData(privateDocs, args.dataLabel), alpha)] : []),
  ];
  const record = lineageRecord(entries, vocabulary);
  const meta: TaskMeta = args.task === 'ner' ? { task: 'ner', maxLength, stride: teacher.meta.stride ?? Math.floor((maxLength - 2) / 4) } : { task: 're', maxLength, negativeLabel: negative, entityPairs: pairs };
  const config = withTaskMeta(student.config, meta);
  const tail = (k: string): number | null => {
    const l = termLog[k]?.slice(-100) ?? [];
    return l.length ? l.reduce((a, b) => a + b, 0) / l.length : null;
  };
  const metrics: Record<string, unknown> = {
    // Shared with the student: folders are named, never given by full path (see lineage.ts).
    kind: 'distill', status, steps: state.step, wall_time_sec: wall(), resumed_from_step: resumedFrom ?? null, settings: { ...settings, transfer: sources.map((s) => (s.kind === 'path' ? shareName(s.path) : s.kind)).join(',') },
    teacher: { name: shareName(args.teacher), architecture: `${teacher.config.architecture} ${teacher.config.numLayers}L-${teacher.config.hiddenSize}` },
    student: { origin: student.origin, architecture: `${config.architecture} ${config.numLayers}L-${config.hiddenSize}`, labels: config.labels },
    transfer: { sentences: items.length, sources: corpus.sources, same_tokenizer: same, merged_teacher_labels: merged },
    loss_kl_last100: tail('loss_kl'), loss_hard_last100: tail('loss_hard'), loss_hidden_last100: tail('loss_hidden'), test: null, lineage: record,
  };
  const card = () => [
    `# Distilled ${args.task.toUpperCase()} student (${(metrics['student'] as { architecture: string }).architecture})`, '',
    `Distilled by \`benchtop distill\` from the teacher "${shareName(args.teacher)}" on ${items.length} transfer sentences (${corpus.sources.map((s) => s.name).join(', ')}),`,
    `${state.step} steps of ${batchSize}, KL on logits softened at T=${T} (× T²)${args.hidden ? `, ${args.hidden} alignment of the last hidden states` : ''}${alpha > 0 ? `, private labelled batches on a fraction ${alpha} of the steps` : ''}.`,
    `Student initialisation: ${student.origin}. Wall time ${(wall() / 60).toFixed(1)} min.`,
    ...(metrics['test'] ? ['', `Test F1 (${args.test !== undefined ? shareName(args.test) : ''}): ${String((metrics['test'] as { micro?: { f1?: number } }).micro?.f1 ?? 'n/a')}`] : []), '',
    privacySection(record),
  ].join('\n');
  const seen = privateEx.length > 0 || inherited.length > 0 ? { [FINGERPRINT_FILE]: fingerprintBytes(privateSeen, inherited) } : {};
  const extra = () => ({ 'metrics.json': `${JSON.stringify(metrics, null, 2)}\n`, 'lineage.json': `${JSON.stringify(record, null, 2)}\n`, 'README.md': card(), ...seen });
  saveHfFolder(out, { config, weights: runner.studentWeights(), vocab: student.vocab, tokenizer: student.tokenizerSettings, extraFiles: extra() });
  if (args.test) {
    metrics['test'] = (await evaluate({ task: args.task, model: out, data: args.test, threads })).metrics;
    for (const [f, text] of Object.entries(extra())) writeFileAtomic(path.join(out, f), text);
  }
  return { status, out, steps: state.step, metrics, lineage: record, ...(privateEx.length > 0 && { fingerprinted: textsDigest(privateSeen) }) };
}

/** Task-specific distillation reporting a TrainResult (lineage and PHI status when completed). */
export async function distill(args: DistillArgs, ctx: TaskContext = QUIET): Promise<TrainResult> {
  const r = await distillTask(args, ctx);
  return {
    status: r.status,
    out: r.out,
    ...(r.checkpointDir !== undefined ? { checkpointDir: r.checkpointDir } : {}),
    ...(r.lineage ? { lineage: r.lineage, phiStatus: r.lineage.phi_status } : {}),
    ...(r.fingerprinted !== undefined && { fingerprinted: r.fingerprinted }),
  };
}
