// `distill-general`: task-agnostic distillation of a masked-LM teacher into a smaller student on
// raw text (dynamic masking, streamed), with the teacher run inside the training graph:
//   distilbiobert  — student from every other teacher layer; 2·MLM + 5·KL(T=2, masked positions)
//                    + 1·cosine on the last hidden states (DistilBERT / DistilBioBERT).
//   tinybert       — attention-map MSE + hidden MSE through a projection + embedding MSE + soft
//                    cross-entropy on the MLM logits (T=1), over a layer mapping (TinyBERT).
//   compactbiobert — MLM + attention KL per mapped layer + hidden cosine + output KL (CompactBioBERT).

import type { Device } from '../runtime/session.ts';
import path from 'node:path';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import type { EncoderConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { hfNoDecay } from '../optim/adamw.ts';
import { runMlmLoop } from '../pretrain/mlm-loop.ts';
import { evalBlocks, mlmEvalLoss, mlmSettings, runFingerprint, textEntries } from '../pretrain/pretrain.ts';
import { checkTextSources, encodingNotes, skippedLinkNotes } from '../pretrain/text-files.ts';
import { QUIET, type TaskContext } from '../tasks/events.ts';
import { makeTokenizer, shareName } from '../tasks/model-setup.ts';
import { GENERAL_DISTILL_LR } from '../tasks/train-defaults.ts';
import { checkMaxLength, SettingError } from '../tasks/setting-error.ts';
import { buildDistillTrainGraph, type DistillLossConfig } from './graph.ts';
import { prepareDistillOut } from './distill-out.ts';
import { lineageRecord, privacySection, startingPointEntry, teacherEntry } from './lineage.ts';
import { vocabularyRecord } from './vocab-origin.ts';
import { FINGERPRINT_FILE, fingerprintBytes, startingFingerprints, textFingerprintBytes } from './fingerprint-file.ts';
import { checkTransferNotPrivate } from './transfer-guard.ts';
import { DistillRunner } from './step-runner.ts';
import { everyOtherLayer, parseLayerMap, studentFromTeacher, studentPresetConfig } from './student-init.ts';
import { withOutLock } from '../io/out-folder.ts';

import { RECIPES, type Recipe } from './recipes.ts';

export { RECIPES, type Recipe };

/** Arguments of `distill-general` (CLI flags map one to one). */
export interface GeneralDistillArgs {
  teacher: string;
  studentPreset: string;
  recipe: Recipe;
  text: string[];
  /** The text holds (or may hold) patient information: the student is recorded as trained on PHI. */
  textContainsPhi?: boolean;
  out: string;
  /** Teacher layer (0-based) of each student layer; default evenly spread. */
  layerMap?: string;
  /** Initialise from teacher layers (default: distilbiobert only). */
  initFromTeacher?: boolean;
  temperature?: number;
  steps?: number;
  batchSize?: number;
  maxLength?: number;
  lr?: number;
  wholeWordMask?: boolean;
  seed?: number;
  threads?: number;
  /** Where teacher and student run (default the CPU; WebGPU falls back with a reason). */
  device?: Device;
  checkpointEvery?: number;
  maxMinutes?: number;
  evalBlocks?: number;
  resume?: 'auto' | 'never';
  /** Replace a non-empty `out` (without it, only an empty folder or this run's own checkpoint is accepted). */
  overwrite?: boolean;
}

/** The recipe's loss terms for a student/teacher pair with layer map `map` (student layer → teacher layer). */
export function recipeLosses(recipe: Recipe, student: EncoderConfig, teacher: EncoderConfig, map: readonly number[], temperature?: number): DistillLossConfig {
  const hiddenPairs = map.map((t, i) => [i + 1, t + 1] as [number, number]);
  const attentionPairs = map.map((t, i) => [i, t] as [number, number]);
  const dim = teacher.hiddenSize;
  if (recipe === 'distilbiobert') {
    return { kl: 5, hard: 2, temperature: temperature ?? 2, hidden: { kind: 'cosine', weight: 1, teacherDim: dim, pairs: [[student.numLayers, teacher.numLayers]] } };
  }
  if (recipe === 'tinybert') {
    return {
      kl: 1, hard: 0, temperature: temperature ?? 1,
      attention: { kind: 'mse', weight: 1, pairs: attentionPairs }, hidden: { kind: 'mse', weight: 1, teacherDim: dim, pairs: hiddenPairs }, embedding: { weight: 1, teacherDim: dim },
    };
  }
  return { kl: 1, hard: 1, temperature: temperature ?? 2, attention: { kind: 'kl', weight: 1, pairs: attentionPairs }, hidden: { kind: 'cosine', weight: 1, teacherDim: dim, pairs: hiddenPairs } };
}

/** Task-agnostic distillation; see GeneralDistillArgs. */
export async function distillGeneral(args: GeneralDistillArgs, ctx: TaskContext = QUIET): Promise<{ status: string; out: string; steps: number; evalLoss?: number; metrics?: Record<string, unknown> }> {
  return withOutLock(path.resolve(args.out), () => distillGeneralInFolder(args, ctx));
}

async function distillGeneralInFolder(args: GeneralDistillArgs, ctx: TaskContext): Promise<{ status: string; out: string; steps: number; evalLoss?: number; metrics?: Record<string, unknown> }> {
  if (!RECIPES.includes(args.recipe)) throw new Error(`unknown recipe "${String(args.recipe)}" (known: ${RECIPES.join(', ')})`);
  const out = path.resolve(args.out);
  const s = mlmSettings(args);
  const files = checkTextSources(args.text);
  for (const note of [...skippedLinkNotes(args.text), ...encodingNotes(args.text)]) ctx.emit({ type: 'log', message: `note: ${note}` });
  // Text not declared as PHI must not repeat the teacher's PHI text (its recorded fingerprints).
  if (args.textContainsPhi !== true) for (const w of checkGeneralText(args.text, args.teacher)) ctx.emit({ type: 'log', message: `warning: ${w}` });
  const resume = prepareDistillOut(out, args.teacher, args.resume ?? 'auto', args.overwrite === true, args.text.map((t) => ['--text', t] as const));
  const teacher = loadHfFolder(args.teacher);
  if (teacher.config.task !== 'masked-lm') throw new Error(`${args.teacher}: the teacher must be a masked-LM model (with its MLM head) for ${args.recipe}; it is a ${teacher.config.task} model`);
  const tok = makeTokenizer(teacher.vocab, teacher.tokenizer);
  const student = studentPresetConfig(args.studentPreset, teacher.config);
  const Lt = teacher.config.numLayers;
  const uniform = Array.from({ length: student.numLayers }, (_, i) => Math.round(((i + 1) * Lt) / student.numLayers) - 1);
  const map = args.layerMap ? parseLayerMap(args.layerMap, Lt) : args.recipe === 'distilbiobert' ? everyOtherLayer(Lt, student.numLayers) : uniform;
  if (map.length !== student.numLayers) throw new SettingError(`--layer-map lists ${map.length} teacher layers for a ${student.numLayers}-layer student`);
  checkMaxLength(s.maxLength, [{ whose: "teacher's", config: teacher.config }, { whose: "student's", config: student }]);
  const fromTeacher = args.initFromTeacher ?? args.recipe === 'distilbiobert';
  // A student made of the teacher's layers keeps the fingerprints recorded beside it (read now).
  const inherited = startingFingerprints(fromTeacher ? args.teacher : undefined);
  const weights: Map<string, HostTensor> = fromTeacher ? studentFromTeacher(teacher, student, map) : initWeights(student, s.seed);
  const loss = recipeLosses(args.recipe, student, teacher.config, map, args.temperature);
  const lr = args.lr ?? GENERAL_DISTILL_LR;
  const warmup = Math.round(0.06 * s.steps);
  const spec = buildDistillTrainGraph(student, loss, {
    optimizer: { lr, weightDecay: 0.01, noDecay: hfNoDecay, maxGradNorm: 1, schedule: { kind: 'linear', warmupSteps: warmup, totalSteps: s.steps } },
    mlmGather: true, teacher: teacher.config, dropout: true, seed: s.seed,
  });
  const entries = textEntries(args.text, 'distill-transfer', args.textContainsPhi === true);
  // The teacher is recorded now, not when the run ends: a PHI-trained teacher deleted meanwhile
  // was recorded as "no weights file found" and, with no lineage.json left to read, not PHI-trained.
  // Teacher layers copied into the student keep what the teacher's weights carry; without a
  // lineage.json that is unknown, as for pretrain --model from the same folder (it said no PHI).
  const start = fromTeacher ? [startingPointEntry(args.teacher, 'init', `layers ${map.join(',')}`, 'unknown')] : [];
  const teacherRecord = [teacherEntry(args.teacher, false), ...start];
  const vocabulary = vocabularyRecord(teacher.vocab, { model: args.teacher, role: 'teacher model' }, teacher.tokenizer);
  const runner = await DistillRunner.create([spec], weights, { teacher: teacher.weights, threads: args.threads ?? 2, seed: s.seed, ...(args.device !== undefined && { device: args.device }) });
  if (runner.where.deviceNote !== undefined) ctx.emit({ type: 'log', message: runner.where.deviceNote });
  const settings = { ...s, recipe: args.recipe, lr, warmup, layer_map: map, init_from_teacher: fromTeacher, loss, whole_word_mask: args.wholeWordMask ?? false };
  const origin = `${args.studentPreset} ${fromTeacher ? 'from teacher layers' : 'random init'} ← ${shareName(args.teacher)}`;
  // The teacher by its weights (teacherRecord's hashes), not its folder's name: the same teacher
  // moved refused the resume, and another one put in its folder resumed as if it were the same.
  const fingerprint = runFingerprint(settings, `${args.studentPreset} ${fromTeacher ? 'from teacher layers' : 'random init'}`, [...teacherRecord, ...entries]);
  ctx.emit({ type: 'log', message: `distill-general (${args.recipe}): ${student.numLayers}L-${student.hiddenSize} student, teacher layers ${map.join(',')}, ${s.steps} steps` });
  let result;
  try {
    result = await runMlmLoop(
      {
        step: (batch) => {
          const dims = [batch.batchSize, batch.seqLen];
          const feeds: Record<string, HostTensor> = {
            input_ids: { dtype: 'int64', dims, data: batch.inputIds },
            attention_mask: { dtype: 'int64', dims, data: batch.attentionMask },
            mlm_positions: { dtype: 'int64', dims: [batch.labels.length], data: batch.mlmPositions as BigInt64Array },
          };
          if (spec.hasTokenTypes) feeds['token_type_ids'] = { dtype: 'int64', dims, data: new BigInt64Array(batch.inputIds.length) };
          if (loss.hard > 0) feeds['labels'] = { dtype: 'int64', dims: [batch.labels.length], data: batch.labels };
          return runner.run(0, feeds);
        },
        where: runner.where,
        state: () => runner.state(),
        restore: (st) => runner.restore(st),
      },
      { files, tok, vocabSize: student.vocabSize, maxLength: s.maxLength, batchSize: s.batchSize, steps: s.steps, wholeWord: args.wholeWordMask ?? false, seed: s.seed, holdoutEvery: 50, checkpointDir: path.join(out, 'checkpoint'), checkpointEvery: s.checkpointEvery, resume, fingerprint, ...(args.maxMinutes !== undefined ? { maxWallSec: args.maxMinutes * 60 } : {}) },
      ctx,
    );
  } finally {
    await runner.release();
  }
  if (result.status !== 'completed') return { status: result.status, out, steps: result.steps };
  const studentWeights = runner.studentWeights();
  const evalLoss = await mlmEvalLoss(student, studentWeights, evalBlocks(files, tok, s.maxLength, s.evalBlocks), tok, { seed: s.seed, threads: args.threads ?? 2 });
  const record = lineageRecord([...teacherRecord, ...entries], vocabulary);
  const metrics = {
    kind: 'distill-general', recipe: args.recipe, status: result.status, steps: result.steps, wall_time_sec: result.wallSec, loss_terms_last50: result.lastTerms,
    mlm_eval_loss: evalLoss ?? null, settings, student: { origin, architecture: `${student.architecture} ${student.numLayers}L-${student.hiddenSize}` },
    teacher: { name: shareName(args.teacher), architecture: `${teacher.config.architecture} ${teacher.config.numLayers}L-${teacher.config.hiddenSize}` }, resumed_from_step: result.resumedFromStep ?? null, lineage: record,
  };
  const card = [
    `# ${args.recipe} student (${metrics.student.architecture})`, '',
    `Distilled by \`benchtop distill-general --recipe ${args.recipe}\` from the teacher "${shareName(args.teacher)}": ${result.steps} steps of ${s.batchSize}×${s.maxLength}, teacher layers ${map.join(',')}, ${fromTeacher ? 'initialised from teacher layers' : 'random init'}.`,
    `Loss terms (mean of the last 50 steps): ${Object.entries(result.lastTerms).map(([k, v]) => `${k} ${v.toFixed(4)}`).join(', ')}. Held-out MLM loss ${evalLoss?.toFixed(4) ?? 'n/a'}. Wall time ${(result.wallSec / 60).toFixed(1)} min.`, '',
    privacySection(record),
  ].join('\n');
  const fingerprints =
    args.textContainsPhi === true ? { [FINGERPRINT_FILE]: textFingerprintBytes(files, inherited) }
    : inherited.length > 0 ? { [FINGERPRINT_FILE]: fingerprintBytes([], inherited) }
    : {};
  saveHfFolder(out, { config: { ...student, raw: {} }, weights: studentWeights, vocab: teacher.vocab, tokenizer: teacher.tokenizer, extraFiles: { 'metrics.json': `${JSON.stringify(metrics, null, 2)}\n`, 'lineage.json': `${JSON.stringify(record, null, 2)}\n`, 'README.md': card, ...fingerprints } });
  return { status: 'completed', out, steps: result.steps, ...(evalLoss !== undefined ? { evalLoss } : {}), metrics };
}

/** The transfer guard for --text, its advice in distill-general's terms; gives its warnings. */
function checkGeneralText(text: readonly string[], teacher: string): string[] {
  try {
    return checkTransferNotPrivate(text, { teacher });
  } catch (err) {
    const message = (err as Error).message.replace(/: remove it from --transfer$/, ': remove it from --text, or give --text-contains-phi (the student is then recorded as trained on PHI)');
    throw new Error(message.replace('this transfer file', 'this text file'));
  }
}
