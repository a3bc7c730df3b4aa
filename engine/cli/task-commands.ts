// CLI commands for the NER/RE tasks: `train ner|re`, `eval ner|re` and `predict`. They run the
// task in-process (Ctrl-C asks training to stop with a checkpoint; a second Ctrl-C exits) and
// print progress on stderr: one updating line on a terminal, plain periodic lines otherwise.

import { defaultVocabFile } from '../text/default-vocab.ts';
import { ExportTargetError, type ExportFormat } from '../formats/registry.ts';
import type { FormatIssue } from '../formats/types.ts';
import type { Architecture } from '../model/config.ts';
import type { InputFormat } from '../tasks/data-load.ts';
import { throttleInference, type TaskContext, type TaskEvent } from '../tasks/events.ts';
import { evaluate, predict } from '../tasks/predict-task.ts';
import { train, type TrainArgs } from '../tasks/train-task.ts';
import { deviceOption, learningRateOption, optionalNumber, optionalString, refusePresetFlags, requireString, StoppedError, UsageError, type Opts } from './args.ts';
import { onStopSignals } from './stop-signals.ts';
import { recordedPhiStatus } from './folder-record.ts';
import { EXPORT_FORMATS, INPUT_FORMATS } from './option-names.ts';

const MAX_ISSUES_SHOWN = 20;

function fmtTime(sec: number): string {
  if (!Number.isFinite(sec)) return '?';
  const s = Math.round(sec);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${s}s`;
}

/** A TaskContext printing progress and issues to stderr, with a cancel flag set by SIGINT. */
export function cliContext(
  stream: NodeJS.WriteStream = process.stderr,
): TaskContext & { close(): void; cancelled: boolean } {
  const tty = stream.isTTY === true;
  let onLine = false;
  // NOTE: performance.now() counts from the process's start: 0 held back the first line until it was 10 s old.
  let lastPlain = -Infinity;
  let lastText = '';
  const shown = { error: 0, warning: 0 };
  const hidden = { error: 0, warning: 0 };
  const line = (text: string): void => {
    if (onLine) stream.write('\r\x1b[2K');
    onLine = false;
    stream.write(`${text}\n`);
  };
  const status = (text: string, force: boolean): void => {
    if (tty) {
      stream.write(`\r\x1b[2K${text.slice(0, (stream.columns || 120) - 1)}`);
      onLine = true;
    } else if ((force || performance.now() - lastPlain > 10_000) && text !== lastText) {
      // The last batch and its chunk both report the finished count: "entities: 2/2" came twice.
      stream.write(`${text}\n`);
      lastPlain = performance.now();
      lastText = text;
    }
  };
  const self = {
    cancelled: false,
    isCancelled: () => self.cancelled,
    emit(e: TaskEvent): void {
      if (e.type === 'progress') {
        const width = 24;
        const filled = Math.round((e.step / Math.max(1, e.totalSteps)) * width);
        const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
        const dev = e.devF1 !== undefined ? ` dev F1 ${e.devF1.toFixed(4)}` : '';
        status(
          `epoch ${e.epoch} ${bar} ${e.step}/${e.totalSteps} loss ${e.loss.toFixed(4)} lr ${e.lr.toExponential(1)} ${e.stepsPerSec.toFixed(2)} it/s eta ${fmtTime(e.etaSec)}${dev}`,
          e.step === e.totalSteps,
        );
      } else if (e.type === 'eval') {
        line(
          `step ${e.step} (epoch ${e.epoch.toFixed(2)}): dev F1 ${e.devF1.toFixed(4)}${e.isBest ? ' (best so far, saved)' : ''}`,
        );
      } else if (e.type === 'infer-progress') {
        status(
          `${e.phase === 're' ? 'relations' : 'entities'}: ${e.done}/${e.total} inputs`,
          e.done === e.total,
        );
      } else if (e.type === 'issue') {
        const sev = e.issue.severity;
        const note = scoreNote(e.issue);
        if (note !== undefined) line(note);
        else if (shown[sev] >= MAX_ISSUES_SHOWN) hidden[sev]++;
        else {
          shown[sev]++;
          line(formatIssue(e.issue));
        }
      } else if (e.type === 'log') line(e.message);
    },
    close(): void {
      if (onLine) stream.write('\n');
      onLine = false;
      for (const sev of ['error', 'warning'] as const)
        if (hidden[sev] > 0) stream.write(`… and ${hidden[sev]} more ${sev}s\n`);
    },
  };
  return self;
}

/** Control characters shown as escapes: a file named "a\nbenchtop: error: …" cannot forge a line. */
function visible(text: string): string {
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    out += code < 0x20 || code === 0x7f ? (named[c] ?? `\\x${code.toString(16).padStart(2, '0')}`) : c;
  }
  return out;
}

/** The writers' words for the scores a format has no place for (engine/formats: brat, PubTator). */
const SCORES_DROPPED = /^(\d+) (entity|relation) scores? dropped$/u;

/**
 * The confidence scores brat and PubTator have no place for, as a note: "brat export: warning:
 * 27 entity scores dropped" on every such predict read as if something had gone wrong (the
 * workbench's Run says the same in a note: renderer/views/run/output-notes.ts).
 */
export function scoreNote(i: FormatIssue): string | undefined {
  const m = i.severity === 'warning' ? SCORES_DROPPED.exec(i.message.trim()) : null;
  if (!m) return undefined;
  const n = Number(m[1]);
  return `${visible(i.file)}: note: ${n} ${m[2]} ${n === 1 ? 'score' : 'scores'} left out, as the format has no place for ${n === 1 ? 'it' : 'them'}; every ${m[2]} found is written (jsonl and bioc keep the scores)`;
}

/** `file:line: severity: message`, on one line whatever the file is called. */
export function formatIssue(i: FormatIssue): string {
  return `${visible(i.file)}${i.line !== undefined ? `:${i.line}` : ''}: ${i.severity}: ${visible(i.message)}`;
}

function oneOf<T extends string>(
  opts: Opts,
  name: string,
  allowed: readonly string[],
): T | undefined {
  const v = optionalString(opts, name);
  if (v !== undefined && !allowed.includes(v))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}; got "${v}"`);
  return v as T | undefined;
}

function num(opts: Opts, name: string): number | undefined {
  return opts[name] === undefined ? undefined : optionalNumber(opts, name, 0);
}

function task(rest: string[], cmd: string): 'ner' | 're' {
  const t = rest[0];
  if (t !== 'ner' && t !== 're') throw new UsageError(`usage: benchtop ${cmd} ner|re …`);
  return t;
}

/** What Ctrl-C says during prediction and evaluation: they write their output only at the end. */
const STOP_WITHOUT_WRITING = 'stopping; nothing will be written';

/** Runs `fn` with Ctrl-C (and SIGTERM, SIGHUP) wired to the context's cancel flag. */
async function withSigint<T>(
  ctx: ReturnType<typeof cliContext>,
  fn: () => Promise<T>,
  stopping = 'stopping after this step, keeping a checkpoint',
): Promise<T> {
  const off = onStopSignals(ctx, stopping);
  try {
    return await fn();
  } finally {
    off();
    ctx.close();
  }
}

/** Training arguments from CLI options. */
export function trainArgsFromOpts(t: 'ner' | 're', opts: Opts): TrainArgs {
  const args: TrainArgs = {
    task: t,
    out: requireString(opts, 'out'),
    train: requireString(opts, 'train'),
  };
  const str = (k: string): string | undefined => optionalString(opts, k);
  if (str('model') && str('preset'))
    throw new UsageError('give either --model DIR or --preset NAME --vocab FILE, not both');
  if (!str('model') && !str('preset'))
    throw new UsageError(
      'missing --model DIR (or --preset NAME --vocab FILE to start from random weights)',
    );
  refusePresetFlags(opts, ['vocab', 'arch', 'cased']);
  // Each applies to one task only, and the other used to ignore it without a word.
  if (t === 'ner' && opts['negative-label'] !== undefined)
    throw new UsageError('--negative-label applies to train re only (the "no relation" class); NER has none');
  if (t === 're' && opts['stride'] !== undefined)
    throw new UsageError('--stride applies to train ner only (the overlap of the windows over long text)');
  // --preset without --vocab uses the shipped bert-base-uncased vocabulary.
  const strings = {
    dev: 'dev',
    test: 'test',
    model: 'model',
    preset: 'preset',
    vocab: 'vocab',
    negativeLabel: 'negative-label',
  } as const;
  for (const [key, flag] of Object.entries(strings)) {
    const v = str(flag);
    if (v !== undefined) args[key as keyof typeof strings] = v;
  }
  if (args.preset !== undefined && args.vocab === undefined) args.vocab = defaultVocabFile();
  const numbers = {
    epochs: 'epochs',
    batchSize: 'batch-size',
    maxLength: 'max-length',
    stride: 'stride',
    seed: 'seed',
    warmupRatio: 'warmup-ratio',
    weightDecay: 'weight-decay',
    patience: 'patience',
    evalEvery: 'eval-every',
    checkpointEvery: 'checkpoint-every',
    threads: 'threads',
    maxSteps: 'max-steps',
    maxMinutes: 'max-minutes',
  } as const;
  for (const [key, flag] of Object.entries(numbers)) {
    const v = num(opts, flag);
    if (v !== undefined) args[key as keyof typeof numbers] = v;
  }
  const lr = learningRateOption(opts);
  if (lr !== undefined) args.lr = lr;
  const format = oneOf<InputFormat>(opts, 'format', INPUT_FORMATS);
  if (format) args.format = format;
  const arch = oneOf<Architecture>(opts, 'arch', ['bert', 'distilbert']);
  if (arch) args.arch = arch;
  if (opts['cased']) args.cased = true;
  if (opts['no-dropout']) args.dropout = false;
  if (opts['overwrite']) args.overwrite = true;
  if (opts['resume'] && opts['no-resume'])
    throw new UsageError('--resume and --no-resume contradict each other');
  if (opts['resume']) args.resume = 'require';
  if (opts['no-resume']) args.resume = 'never';
  Object.assign(args, deviceOption(opts));
  return args;
}

/** `benchtop train ner|re …` */
export async function cmdTrain(rest: string[], opts: Opts): Promise<void> {
  const args = trainArgsFromOpts(task(rest, 'train'), opts);
  // What the starting weights carry, by their folder's record, goes into the run's metrics.json.
  const carried = args.model !== undefined ? recordedPhiStatus(args.model) : undefined;
  if (carried !== undefined) args.modelPhiStatus = carried;
  const ctx = cliContext();
  const r = await withSigint(ctx, () => train(args, ctx));
  if (r.status === 'cancelled') {
    // Stopped while the data was being encoded, before a first checkpoint: nothing to resume.
    console.log(
      r.checkpointDir === undefined
        ? 'stopped before the first training step; nothing was saved'
        : `stopped; checkpoint saved in ${r.checkpointDir}. Run the same command again to resume.`,
    );
    throw new StoppedError();
  }
  const m = r.metrics;
  const steps = m?.steps ?? 0;
  const facts = [`${steps} step${steps === 1 ? '' : 's'}`, fmtTime(m?.wall_time_sec ?? 0)];
  if (m?.dev) facts.push(`dev F1 ${m.dev.micro.f1.toFixed(4)}`);
  if (m?.test) facts.push(`test F1 ${m.test.micro.f1.toFixed(4)}`);
  console.log(`${r.status}: saved ${r.out} (${facts.join(', ')})`);
}

/** `benchtop eval ner|re --model DIR --data FILE [--json]` */
export async function cmdEval(rest: string[], opts: Opts): Promise<void> {
  const t = task(rest, 'eval');
  const inputFormat = oneOf<InputFormat>(opts, 'format', INPUT_FORMATS);
  const ctx = cliContext();
  const r = await withSigint(ctx, () =>
    evaluate(
      {
        task: t,
        model: requireString(opts, 'model'),
        data: requireString(opts, 'data'),
        ...(inputFormat ? { inputFormat } : {}),
        ...(num(opts, 'threads') !== undefined ? { threads: num(opts, 'threads') as number } : {}),
        ...(num(opts, 'batch-size') !== undefined
          ? { batchSize: num(opts, 'batch-size') as number }
          : {}),
        ...(opts['int8'] ? { int8: true } : {}),
        ...deviceOption(opts),
      },
      throttleInference(ctx),
    ),
    STOP_WITHOUT_WRITING,
  );
  // int8 scores may differ from float32 ones: a JSON reader is told, as the text report's title says.
  if (opts['json']) console.log(JSON.stringify(r.int8 ? { ...r.metrics, int8: true } : r.metrics, null, 2));
  else console.log(r.text);
}

/** The export check's refusal of an existing output, in the CLI's words: the flag that allows it. */
function withOverwriteFlag(e: unknown): unknown {
  if (!(e instanceof ExportTargetError) || e.reason !== 'exists') return e;
  return new Error(e.message.replace(/, or allow replacing (it|files of the same names)$/, ', or pass --overwrite to replace $1'));
}

/** `benchtop predict --model DIR [--re-model DIR] --input PATH --out PATH --format F` */
export async function cmdPredict(opts: Opts): Promise<void> {
  const format = oneOf<ExportFormat>(opts, 'format', EXPORT_FORMATS);
  if (!format) throw new UsageError(`missing --format (${EXPORT_FORMATS.join('|')})`);
  const inputFormat = oneOf<InputFormat>(opts, 'input-format', INPUT_FORMATS);
  const reModel = optionalString(opts, 're-model');
  const keep = opts['keep-finished'] === true;
  const ctx = cliContext();
  const r = await withSigint(ctx, () =>
    predict(
      {
        model: requireString(opts, 'model'),
        input: requireString(opts, 'input'),
        out: requireString(opts, 'out'),
        format,
        ...(reModel ? { reModel } : {}),
        ...(inputFormat ? { inputFormat } : {}),
        ...(num(opts, 'threads') !== undefined ? { threads: num(opts, 'threads') as number } : {}),
        ...(num(opts, 'batch-size') !== undefined
          ? { batchSize: num(opts, 'batch-size') as number }
          : {}),
        ...(opts['int8'] ? { int8: true } : {}),
        ...deviceOption(opts),
        ...(opts['overwrite'] ? { overwrite: true } : {}),
      },
      { ...throttleInference(ctx), keepsFinished: () => keep },
    ).catch((e: unknown) => {
      throw withOverwriteFlag(e);
    }),
    keep ? 'stopping; the documents finished so far will be written' : STOP_WITHOUT_WRITING,
  );
  const errors = r.issues.filter((i) => i.severity === 'error').length;
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  console.log(
    `wrote ${r.written.length === 1 ? r.written[0] : `${r.written.length} files to ${String(opts['out'])}`}: ${count(r.documents, 'document', 'documents')}, ${count(r.entities, 'entity', 'entities')}, ${count(r.relations, 'relation', 'relations')}; ` +
      `${r.documentsPerSec.toFixed(2)} documents/s, ${Math.round(r.wordsPerSec)} words/s (${r.words} words in ${r.seconds.toFixed(2)} s)` +
      (errors > 0 ? `; ${errors} input error(s), see above` : ''),
  );
  if (r.stopped) {
    // --keep-finished and Ctrl-C: the documents not run, by id (and file), never their text.
    const { planned, notRun } = r.stopped;
    const named = notRun.slice(0, NOT_RUN_NAMED).map((d) => (d.source !== undefined && d.source !== d.id ? `${d.id} (${d.source})` : d.id));
    const more = notRun.length > NOT_RUN_NAMED ? `, and ${notRun.length - NOT_RUN_NAMED} more` : '';
    console.log(`stopped: wrote ${r.documents} of ${planned} documents${notRun.length > 0 ? `; not run: ${named.join(', ')}${more}` : ''}`);
    throw new StoppedError();
  }
}

/** Documents not run that a stopped `predict --keep-finished` names (the rest are counted). */
const NOT_RUN_NAMED = 20;
