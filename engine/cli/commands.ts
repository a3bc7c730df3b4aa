// What each `benchtop` command takes: its usage line, a one-line summary and every flag with its
// default. `benchtop CMD --help` prints one command's page; a flag the command does not read is
// refused (it would otherwise be ignored without a word, e.g. `predict --epochs 3`).

import { PRESETS } from '../model/config.ts';
import { nearestName } from './args.ts';
import { RECIPES } from '../distill/recipes.ts';
import { EXPORT_FORMATS, INPUT_FORMATS } from './option-names.ts';
import { LEARNING_RATE_RANGE } from '../train/step-guard.ts';
import { defaultLearningRateRule, defaultPretrainLearningRateRule, GENERAL_DISTILL_LR } from '../tasks/train-defaults.ts';
import { BATCH_RANGE, COUNT_RANGE, describeRange, MINUTES_RANGE, OPTIONAL_COUNT_RANGE, SEED_RANGE, SHARE_RANGE, THREADS_RANGE, type FlagRange } from './number-flags.ts';

export interface FlagSpec {
  /** Flag name without dashes. */
  name: string;
  /** Its value's placeholder (absent for switches). */
  arg?: string;
  desc: string;
  /** A numeric flag's accepted values: stated in the help, refused outside before any work (exit 2). */
  range?: FlagRange;
}

export interface CommandSpec {
  /** As typed: "train", "model inspect". */
  name: string;
  usage: string;
  summary: string;
  flags: FlagSpec[];
  /** Lines printed after the flags. */
  notes?: string[];
}

const PRESET_NAMES = Object.keys(PRESETS).join(', ');
/** distill's floor (task-distill.ts); distill-general takes the same. */
const TEMPERATURE_RANGE: FlagRange = { int: false, min: 0.05 };

const f = (name: string, arg: string | undefined, desc: string): FlagSpec => ({ name, ...(arg !== undefined && { arg }), desc });
/** A numeric flag and its range. */
const n = (name: string, arg: string, desc: string, range: FlagRange): FlagSpec => ({ ...f(name, arg, desc), range });

/** --lr: the range every command accepts (checkLearningRate's) and the command's default. */
const lr = (defaults: string): FlagSpec => f('lr', 'X', `peak learning rate, ${LEARNING_RATE_RANGE} (default ${defaults})`);
const THREADS = n('threads', 'N', 'CPU threads for onnxruntime (default 2)', THREADS_RANGE);
const DEVICE = f('device', 'cpu|webgpu', 'where the model runs (default cpu); webgpu uses the GPU, or says why it cannot and uses the CPU');
/** --overwrite of the commands that write one file (never a file of the model or the input). */
const OVERWRITE_FILE = f('overwrite', undefined, 'replace an existing output file');
const OVERWRITE = f('overwrite', undefined, 'replace the model in a non-empty --out folder (one with a config.json; without the flag, only a new or empty folder, or one holding its own checkpoint/, is accepted)');
const MAX_MINUTES = n('max-minutes', 'X', 'stop after X minutes, keeping a checkpoint to resume from', MINUTES_RANGE);
const NO_RESUME = f('no-resume', undefined, 'start over, discarding OUT/checkpoint/ (by default a run resumes from it)');
const SEED = n('seed', 'N', 'random seed (default 42); the same seed and data give the same model', SEED_RANGE);
const DATA_DIR = f('data-dir', 'DIR', 'the workspace folder (default: the per-user application data folder)');
const MODEL_SOURCE = [
  f('model', 'DIR', 'start from this Hugging Face model folder'),
  f('preset', 'NAME', `or start from random weights of this size: ${PRESET_NAMES}`),
  f('vocab', 'FILE', 'vocabulary for --preset (default: the shipped bert-base-uncased vocab.txt)'),
  f('arch', 'bert|distilbert', 'architecture for --preset (default bert)'),
];

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'start',
    usage: 'benchtop start [--data-dir DIR]',
    summary: 'open the desktop app (browser mode where Electron is absent)',
    flags: [DATA_DIR],
  },
  {
    name: 'serve',
    usage: 'benchtop serve [--port N] [--host 127.0.0.1] [--data-dir DIR]',
    summary: 'browser mode: serve the workbench on loopback and print its URL with the access token',
    flags: [
      n('port', 'N', 'port to listen on (default 0: a free one)', { int: true, min: 0, max: 65535 }),
      f('host', 'ADDR', '127.0.0.1 (default) or localhost; other addresses are refused'),
      DATA_DIR,
    ],
  },
  {
    name: 'model inspect',
    usage: 'benchtop model inspect DIR [--json]',
    summary: 'describe a model folder: architecture, size, task, labels, and the settings train recorded (window, RE entity pairs)',
    flags: [f('json', undefined, 'print JSON instead of a table')],
  },
  {
    name: 'init-model',
    usage: 'benchtop init-model --arch bert|distilbert --preset NAME [--vocab FILE] [--labels L1,L2,…] [--task ner|re|mlm] --out DIR',
    summary: 'write a randomly initialised Hugging Face model folder',
    flags: [
      f('arch', 'bert|distilbert', 'architecture (required)'),
      f('preset', 'NAME', `size (required): ${PRESET_NAMES}`),
      f('vocab', 'FILE', 'vocabulary (default: the shipped bert-base-uncased vocab.txt)'),
      f('labels', 'L1,L2,…', 'class labels (required for ner and re; e.g. O,B-Disease,I-Disease)'),
      f('task', 'ner|re|mlm', 'head: token classification, sequence classification or masked LM (default ner with --labels, else mlm)'),
      f('out', 'DIR', 'the folder to write (required)'),
      SEED,
      f('cased', undefined, 'keep letter case when tokenizing (default: lower-case, as uncased BERT)'),
      OVERWRITE,
    ],
  },
  {
    name: 'forward',
    usage: 'benchtop forward --model DIR --inputs IN.json --out OUT.json [--grads]',
    summary: 'run one forward (and backward) pass: logits, loss, gradients as JSON',
    flags: [
      f('model', 'DIR', 'the model folder (required)'),
      f('inputs', 'IN.json', 'input_ids, attention_mask, optional token_type_ids and labels as nested arrays (required)'),
      f('out', 'OUT.json', 'where to write logits, loss and gradients (required)'),
      f('grads', undefined, "also write the gradient of every parameter, by its Hugging Face name, as a flat list in row-major order (reshape to the parameter's shape; needs labels)"),
      THREADS,
      OVERWRITE_FILE,
    ],
  },
  {
    name: 'export-onnx',
    usage: 'benchtop export-onnx --model DIR --out FILE.onnx',
    summary: 'export the inference graph as a standalone .onnx file',
    flags: [f('model', 'DIR', 'the model folder (required)'), f('out', 'FILE.onnx', 'the file to write (required)'), OVERWRITE_FILE],
    notes: [
      'The file holds the weights (ONNX opset 17). Inputs: input_ids and attention_mask, int64 [batch, sequence], and',
      'token_type_ids (the same) for every family but DistilBERT; batch size and length are free, the length at most the',
      "model's positions. Output: logits, float32 [batch, sequence, labels] (ner), [batch, labels] (re), [batch, sequence,",
      'vocabulary] (masked LM) or [batch, sequence, hidden] (an encoder without a head). Its metadata holds "architecture",',
      `"task" and "labels" (a JSON list, in logit order; empty for masked LM); tokenize as the model folder's tokenizer does.`,
    ],
  },
  {
    name: 'model export',
    usage: 'benchtop model export DIR --out OUT [--withhold-names] [--onnx]',
    summary: 'copy a model folder to share, with a lineage.json saying whether it learned from patient data; --withhold-names leaves out the names and paths of its data and sources (weights, labels, scores and hashes stay)',
    flags: [
      f('out', 'OUT', 'the new or empty folder to write (required; not inside DIR)'),
      f('withhold-names', undefined, 'leave out the names and paths of the data, datasets and models it learned from (see below)'),
      f('onnx', undefined, 'also write model.onnx, the standalone inference graph export-onnx writes'),
    ],
    notes: [
      'Copies the weights, config.json, the vocabulary and tokenizer files, README.md, training_card.md and',
      'metrics.json, and writes lineage.json anew (private-fingerprints.bin and checkpoint/ stay behind). The files',
      'are written to a hidden folder inside OUT and moved in only when all are: a failure or Ctrl-C leaves nothing.',
      "lineage.json says whether the model learned from patient data: the folder's own lineage.json (distill,",
      'pretrain, init-model), else, for a model `benchtop train` made, its training and dev data, which count as',
      'PHI (the command line cannot know they held none), else PHI status unknown.',
      '--withhold-names leaves out: the paths and names of the data files and folders, datasets, starting, teacher',
      'and transfer sources (metrics.json and training_card.md rewritten, lineage.json listing each source by kind',
      'and number, README.md written anew, the name-or-path keys of config.json and tokenizer_config.json).',
      'What stays: the weights, vocabulary, labels, settings and scores, each data file\'s size and sha256,',
      'document counts, the PHI status, and a note that names were withheld.',
    ],
  },
  {
    name: 'train',
    usage: 'benchtop train ner|re (--model DIR | --preset NAME [--vocab FILE]) --train PATH [--dev PATH] [--test PATH] --out DIR',
    summary: 'fine-tune a NER or relation-extraction model on annotated data',
    flags: [
      ...MODEL_SOURCE,
      f('cased', undefined, 'with --preset: keep letter case when tokenizing'),
      f('train', 'PATH', 'training data: a file or folder in any supported format (required)'),
      f('dev', 'PATH', 'development data for evaluation, early stopping and the best checkpoint (default: a seeded 10% of the --train data, held out from training)'),
      f('test', 'PATH', 'test data, evaluated once with the final model'),
      f('out', 'DIR', 'the model folder to write (required)'),
      f('format', 'F', `data format when not recognised from the files: ${INPUT_FORMATS.join(', ')}`),
      n('epochs', 'N', 'passes over the training data (default: 3, or more for little data so that training takes about 600 steps, at most 20)', COUNT_RANGE),
      n('batch-size', 'N', 'examples per step (default 32)', BATCH_RANGE),
      lr(defaultLearningRateRule('--preset', '--model')),
      n('max-length', 'N', 'word pieces per example, [CLS] and [SEP] included (default 128)', { int: true, min: 3 }),
      n('stride', 'N', 'NER: overlap of the windows over long text, in word pieces, at most max-length − 3 (default (max-length − 2) / 4)', OPTIONAL_COUNT_RANGE),
      n('warmup-ratio', 'X', 'share of steps warming the learning rate up (default 0.1)', SHARE_RANGE),
      n('weight-decay', 'X', 'AdamW weight decay (default 0.01)', { int: false, min: 0 }),
      f('no-dropout', undefined, 'train without dropout'),
      f('negative-label', 'L', 'RE: the "no relation" class (default: the data\'s false, 0, no_relation, none, negative, NA or other label)'),
      n('patience', 'N', 'stop after N evaluations without a better dev F1 (default 3; 0 never stops early)', OPTIONAL_COUNT_RANGE),
      n('eval-every', 'N', 'evaluate on --dev every N steps (default 0: at each epoch end)', OPTIONAL_COUNT_RANGE),
      n('checkpoint-every', 'N', 'save a resumable checkpoint every N steps, besides one at each epoch end (default 500; 0: at epoch ends only)', OPTIONAL_COUNT_RANGE),
      n('max-steps', 'N', 'train at most N steps; the learning-rate warm-up and decay span these N steps (the planned epochs, if they are fewer)', COUNT_RANGE),
      // A fine-tuning run that reaches its time limit saves its model, as one that completes (no checkpoint stays).
      n('max-minutes', 'X', 'stop after X minutes and save the model trained so far (status time-limit in metrics.json)', MINUTES_RANGE),
      SEED,
      THREADS,
      DEVICE,
      f('resume', undefined, 'require OUT/checkpoint/ and continue from it (by default a run resumes if it exists)'),
      NO_RESUME,
      OVERWRITE,
    ],
    notes: ['Ctrl-C stops after the current step and keeps a checkpoint; the same command resumes.'],
  },
  {
    name: 'eval',
    usage: 'benchtop eval ner|re --model DIR --data PATH [--json]',
    summary: 'score a trained model against annotated data (strict and lenient F1, per type)',
    flags: [
      f('model', 'DIR', 'the trained model folder (required)'),
      f('data', 'PATH', 'annotated data: a file or folder (required)'),
      f('format', 'F', `data format when not recognised from the files: ${INPUT_FORMATS.join(', ')}`),
      f('json', undefined, 'print the metrics as JSON'),
      f('int8', undefined, 'int8 encoder layers: faster on CPUs with integer dot-product units'),
      n('batch-size', 'N', 'examples per batch (default 32)', BATCH_RANGE),
      THREADS,
      DEVICE,
    ],
  },
  {
    name: 'predict',
    usage: 'benchtop predict --model DIR [--re-model DIR] --input FILE_OR_FOLDER --out PATH --format F',
    summary: 'find entities (and relations) in documents and write them out',
    flags: [
      f('model', 'DIR', 'the NER model folder (required)'),
      f('re-model', 'DIR', 'a relation-extraction model, run over the entities found'),
      f('input', 'PATH', 'a file or folder of documents (required)'),
      f('input-format', 'F', `input format when not recognised from the files: ${INPUT_FORMATS.join(', ')}`),
      f('out', 'PATH', 'the file (or, for brat, folder) to write (required; never the input)'),
      f('format', 'F', `output format (required): ${EXPORT_FORMATS.join(', ')}`),
      f('int8', undefined, 'int8 encoder layers: faster on CPUs with integer dot-product units'),
      n('batch-size', 'N', 'windows per batch (default 32)', BATCH_RANGE),
      THREADS,
      DEVICE,
      f('overwrite', undefined, 'replace an existing output file, or same-named files in a brat folder'),
      f('keep-finished', undefined, 'Ctrl-C writes the documents already finished (whole, with their relations) and names the rest (exit 130); without it Ctrl-C writes nothing'),
    ],
  },
  {
    name: 'distill',
    usage: 'benchtop distill --task ner|re --teacher DIR (--student DIR | --student-preset NAME | --init-from-teacher) --transfer SOURCES --out DIR',
    summary: "teach a student a teacher's task using only transfer text (no private data by default)",
    flags: [
      f('task', 'ner|re', 'the task of the teacher (required)'),
      f('teacher', 'DIR', 'the trained teacher model folder (required)'),
      f('student', 'DIR', 'start the student from this model folder'),
      f('student-preset', 'NAME', `or from random weights of this size: half-teacher, ${PRESET_NAMES}`),
      f('vocab', 'FILE', "with --student-preset: the student's own vocabulary (default: the teacher's)"),
      f('arch', 'bert|distilbert', "with --student-preset: the student's architecture (default: the teacher's)"),
      f('init-from-teacher', undefined, "start the student from a subset of the teacher's layers"),
      f('layer-map', '0,2,…', 'with --init-from-teacher: which teacher layers (default: evenly spaced)'),
      f('transfer', 'SOURCES', 'comma-separated: general (WordNet text), random, random-shuffle, or files and folders of text (required)'),
      n('max-per-source', 'N', 'transfer examples taken from each source (default steps × batch size)', COUNT_RANGE),
      n('temperature', 'T', 'softening of the teacher logits (default 2)', TEMPERATURE_RANGE),
      f('hidden', 'cosine|mse', 'also align the last hidden states'),
      n('alpha', 'A', 'share of steps on --private-data (default 0: none)', { int: false, min: 0, max: 1, belowMax: true }),
      f('private-data', 'PATH', 'a private labelled set to mix in (needs --alpha; the student then saw PHI)'),
      f('cache', 'DIR', "where to keep the teacher's outputs on the transfer text (default: inside --out)"),
      f('test', 'PATH', 'annotated data to score the student on at the end (its test F1 is printed and kept in metrics.json)'),
      f('out', 'DIR', 'the student model folder to write (required)'),
      n('steps', 'N', 'training steps (default 2000)', COUNT_RANGE),
      n('batch-size', 'N', 'examples per step (default 32)', BATCH_RANGE),
      lr(defaultLearningRateRule('--student-preset', '--student (or --init-from-teacher student)')),
      n('max-length', 'N', "word pieces per example (default: the teacher's)", { int: true, min: 8, max: 512 }),
      SEED,
      THREADS,
      DEVICE,
      MAX_MINUTES,
      NO_RESUME,
      OVERWRITE,
    ],
    notes: ["The student's lineage (teacher, transfer sources, any private data) is written to lineage.json."],
  },
  {
    name: 'pretrain',
    usage: 'benchtop pretrain (--model DIR | --preset NAME [--vocab FILE]) --text PATH[,…] --out DIR',
    summary: 'masked-language-model pretraining on plain text',
    flags: [
      f('model', 'DIR', 'continue pretraining this masked-LM model folder'),
      f('preset', 'NAME', `or start from random weights of this size: ${PRESET_NAMES}`),
      f('vocab', 'FILE', 'vocabulary for --preset (default: the shipped bert-base-uncased vocab.txt)'),
      f('arch', 'bert|distilbert', 'architecture for --preset (default bert)'),
      f('sinusoidal-positions', undefined, 'with --preset: initialise position embeddings as sinusoids'),
      f('text', 'PATH[,…]', 'text files or folders (required)'),
      f('text-contains-phi', undefined, 'the text holds (or may hold) patient information: the model is recorded as trained on PHI'),
      f('out', 'DIR', 'the model folder to write (required)'),
      n('steps', 'N', 'training steps (default 10000)', COUNT_RANGE),
      n('batch-size', 'N', 'blocks per step (default 32)', BATCH_RANGE),
      n('max-length', 'N', 'word pieces per block (default 128)', { int: true, min: 16 }),
      lr(defaultPretrainLearningRateRule()),
      f('whole-word-mask', undefined, 'mask whole words instead of single word pieces'),
      f('no-dropout', undefined, 'train without dropout'),
      n('checkpoint-every', 'N', 'save a resumable checkpoint every N steps (default 200)', OPTIONAL_COUNT_RANGE),
      SEED,
      THREADS,
      DEVICE,
      MAX_MINUTES,
      NO_RESUME,
      OVERWRITE,
    ],
  },
  {
    name: 'distill-general',
    usage: 'benchtop distill-general --teacher DIR --student-preset NAME|half-teacher --recipe RECIPE --text PATH[,…] --out DIR',
    summary: 'distil a masked-LM teacher into a smaller general-purpose student',
    flags: [
      f('teacher', 'DIR', 'a masked-LM teacher model folder (required)'),
      f('student-preset', 'NAME', `the student's size (required): half-teacher, ${PRESET_NAMES}`),
      f('recipe', 'RECIPE', `the losses (required): ${RECIPES.join(', ')}`),
      f('text', 'PATH[,…]', 'text files or folders (required)'),
      f('text-contains-phi', undefined, 'the text holds (or may hold) patient information: the student is recorded as trained on PHI'),
      f('out', 'DIR', 'the student model folder to write (required)'),
      f('layer-map', '1,3,…', 'which teacher layer each student layer learns from'),
      f('init-from-teacher', undefined, "start from the teacher's layers (default with distilbiobert)"),
      n('temperature', 'T', 'softening of the teacher logits (default 2; 1 for tinybert)', TEMPERATURE_RANGE),
      f('whole-word-mask', undefined, 'mask whole words instead of single word pieces'),
      n('steps', 'N', 'training steps (default 10000)', COUNT_RANGE),
      n('batch-size', 'N', 'blocks per step (default 32)', BATCH_RANGE),
      n('max-length', 'N', 'word pieces per block (default 128)', { int: true, min: 16 }),
      lr(GENERAL_DISTILL_LR.toExponential()),
      SEED,
      THREADS,
      DEVICE,
      MAX_MINUTES,
      NO_RESUME,
      OVERWRITE,
    ],
  },
];

/** The spec of the command named by the leading positionals ("model inspect" takes two). */
export function findCommand(positionals: readonly string[]): CommandSpec | undefined {
  const [a, b] = positionals;
  return COMMANDS.find((c) => c.name === a || (b !== undefined && c.name === `${a} ${b}`));
}

/** One command's help page. */
export function commandHelp(c: CommandSpec): string {
  const flags = [...c.flags, f('help', undefined, 'show this help')];
  const width = Math.max(...flags.map((x) => flagLabel(x).length));
  const lines = [`benchtop ${c.name} — ${c.summary}`, '', 'Usage:', `  ${c.usage}`, '', 'Options:'];
  for (const x of flags) lines.push(`  ${flagLabel(x).padEnd(width)}  ${x.desc}${x.range ? `; ${describeRange(x.range)}` : ''}`);
  if (c.notes) lines.push('', ...c.notes);
  return lines.join('\n');
}

function flagLabel(x: FlagSpec): string {
  return `--${x.name}${x.arg !== undefined ? ` ${x.arg}` : ''}`;
}

/** Refuses flags the command does not read, naming them and where to look. */
export function unknownFlags(c: CommandSpec, given: readonly string[]): string | undefined {
  const known = new Set([...c.flags.map((x) => x.name), 'help']);
  const extra = given.filter((g) => !known.has(g));
  if (extra.length === 0) return undefined;
  const list = extra.map((g) => `--${g}`).join(', ');
  // `forward --input` (predict's flag) for `--inputs`: say which one it takes.
  const near = extra.length === 1 ? nearestName(extra[0] as string, [...known]) : undefined;
  return `${c.name} does not take ${list}${near ? `; did you mean --${near}?` : ''} (see "benchtop ${c.name} --help")`;
}
