// `npm run bench:tasks` (npx tsx scripts/bench/ner-re-figures.ts): NER/RE figures for the README.
// Trains TinyBERT-size models (tiny-4L-312, bert-base-uncased vocab) from random init on
// NCBI-disease, BC5CDR, GAD fold 1 and ChemProt (dev for model selection, test for the figure),
// then measures prediction throughput on the MTSamples notes with 2 threads for tiny-4L-312 and
// bioformer-8L (random weights). Writes .bench/ner-re-figures.{json,md}. Full runs take hours on
// 2 cores: limit with --epochs, --max-minutes (per task), --train-limit, --tasks.
// --model DIR fine-tunes from that model (e.g. resources/models/default-student) instead of random
// init; --name NAME writes .bench/ner-re-figures-NAME.{json,md} so runs can be compared.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { saveHfFolder } from '../../engine/checkpoints/hf-folder.ts';
import { readVocab } from '../../engine/checkpoints/tokenizer-files.ts';
import { cliContext } from '../../engine/cli/task-commands.ts';
import { presetConfig } from '../../engine/model/config.ts';
import { initWeights } from '../../engine/model/init.ts';
import { withTaskMeta } from '../../engine/tasks/model-setup.ts';
import { predict, type PredictResult } from '../../engine/tasks/predict-task.ts';
import { train } from '../../engine/tasks/train-task.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DATA = path.join(process.env['BENCHTOP_SHARED'] ?? path.resolve(ROOT, '../shared'), 'data');
const OUT = path.join(ROOT, '.bench');
const VOCAB = path.join(DATA, 'vocab', 'bert-base-uncased-vocab.txt');

const { values: o } = parseArgs({
  options: {
    tasks: { type: 'string', default: 'ncbi,bc5cdr,gad,chemprot' },
    epochs: { type: 'string', default: '3' },
    'max-minutes': { type: 'string' },
    'train-limit': { type: 'string' },
    'test-limit': { type: 'string' },
    'batch-size': { type: 'string', default: '32' },
    lr: { type: 'string', default: '1e-3' },
    'max-length': { type: 'string', default: '128' },
    threads: { type: 'string', default: '2' },
    'predict-docs': { type: 'string' },
    'skip-throughput': { type: 'boolean' },
    model: { type: 'string' },
    name: { type: 'string' },
  },
});

interface TaskSpec {
  key: string;
  task: 'ner' | 're';
  name: string;
  train: string;
  dev?: string;
  test: string;
  header: boolean;
}
const TASKS: TaskSpec[] = [
  {
    key: 'ncbi',
    task: 'ner',
    name: 'NCBI-disease',
    train: 'ner/ncbi-disease/train.tsv',
    dev: 'ner/ncbi-disease/devel.tsv',
    test: 'ner/ncbi-disease/test.tsv',
    header: false,
  },
  {
    key: 'bc5cdr',
    task: 'ner',
    name: 'BC5CDR',
    train: 'ner/bc5cdr/train.tsv',
    dev: 'ner/bc5cdr/devel.tsv',
    test: 'ner/bc5cdr/test.tsv',
    header: false,
  },
  {
    key: 'gad',
    task: 're',
    name: 'GAD fold 1',
    train: 're/gad-fold1/train.tsv',
    test: 're/gad-fold1/test.tsv',
    header: true,
  },
  {
    key: 'chemprot',
    task: 're',
    name: 'ChemProt',
    train: 're/chemprot/train.tsv',
    dev: 're/chemprot/dev.tsv',
    test: 're/chemprot/test.tsv',
    header: true,
  },
];

const num = (k: keyof typeof o): number | undefined =>
  o[k] === undefined ? undefined : Number(o[k]);
const tmp = path.join(OUT, 'tmp');
mkdirSync(tmp, { recursive: true });

/** At most `limit` sentences (CoNLL) or lines (TSV, header kept) of a data file, in .bench/tmp. */
function limited(
  rel: string,
  limit: number | undefined,
  task: 'ner' | 're',
  header: boolean,
): string {
  const src = path.join(DATA, rel);
  if (limit === undefined) return src;
  const text = readFileSync(src, 'utf8');
  const parts =
    task === 'ner'
      ? text.split(/\r?\n\s*\r?\n/).filter((b) => b.trim())
      : text.split('\n').filter((l) => l.trim());
  // CoNLL: the first sentences; TSV: lines spread evenly over the file (RE files are sorted by label).
  const body = parts.slice(header ? 1 : 0);
  const step = Math.max(1, Math.floor(body.length / limit));
  const kept =
    task === 'ner'
      ? parts.slice(0, limit).join('\n\n')
      : [
          ...parts.slice(0, header ? 1 : 0),
          ...body.filter((_, i) => i % step === 0).slice(0, limit),
        ].join('\n');
  const file = path.join(tmp, `${rel.replaceAll('/', '_').replace(/\.tsv$/, '')}.${limit}.tsv`);
  writeFileSync(file, `${kept}\n`);
  return file;
}

const base = o.model ? path.basename(path.resolve(o.model)) : 'tiny-4L-312 (random init)';
const runs: Record<string, unknown>[] = [];
for (const spec of TASKS.filter((t) => (o.tasks ?? '').split(',').includes(t.key))) {
  console.error(`\n== ${spec.name} (${spec.task}) ==`);
  const ctx = cliContext();
  const trainLimit = num('train-limit');
  const t0 = performance.now();
  const r = await train(
    {
      task: spec.task,
      out: path.join(OUT, 'models', o.name ? `${o.name}-${spec.key}` : spec.key),
      overwrite: true,
      resume: 'never',
      train: limited(spec.train, trainLimit, spec.task, spec.task === 're' && spec.key !== 'gad'),
      ...(spec.dev
        ? {
            dev: limited(
              spec.dev,
              trainLimit === undefined ? undefined : Math.ceil(trainLimit / 4),
              spec.task,
              spec.task === 're',
            ),
          }
        : {}),
      test: limited(spec.test, num('test-limit'), spec.task, spec.header),
      ...(o.model ? { model: path.resolve(o.model) } : { preset: 'tiny-4L-312', vocab: VOCAB }),
      epochs: num('epochs') ?? 3,
      batchSize: num('batch-size') ?? 32,
      lr: num('lr') ?? 1e-3,
      maxLength: num('max-length') ?? 128,
      threads: num('threads') ?? 2,
      patience: 0,
      ...(o['max-minutes'] !== undefined ? { maxMinutes: Number(o['max-minutes']) } : {}),
    },
    ctx,
  );
  ctx.close();
  const m = r.metrics;
  runs.push({
    task: spec.task,
    dataset: spec.name,
    preset: base,
    status: r.status,
    steps: m?.steps,
    total_steps: m?.total_steps,
    wall_sec: (performance.now() - t0) / 1000,
    train_sec: m?.wall_time_sec,
    dev_f1: m?.dev?.micro.f1 ?? null,
    test: m?.test
      ? {
          precision: m.test.micro.precision,
          recall: m.test.micro.recall,
          f1: m.test.micro.f1,
          macro_f1: m.test.macro.f1,
          ...(m.test.auroc !== undefined ? { auroc: m.test.auroc } : {}),
        }
      : null,
    train_file: ((f) => (f && 'path' in f ? f.path : undefined))(m?.data.train[0]),
    train_counts: m?.data.counts,
  });
}

const throughput: Record<string, unknown>[] = [];
if (!o['skip-throughput']) {
  const vocab = readVocab(VOCAB);
  const notes = path.join(DATA, 'documents', 'mtsamples', 'mtsamples_401rows.csv');
  let input = notes;
  const limit = num('predict-docs');
  if (limit !== undefined) {
    input = path.join(tmp, `mtsamples.${limit}.csv`);
    // Rows may span lines (quoted transcriptions): keep whole records by counting unquoted newlines.
    const text = readFileSync(notes, 'utf8');
    let rows = 0;
    let quoted = false;
    let cut = text.length;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '"') quoted = !quoted;
      else if (text[i] === '\n' && !quoted && ++rows === limit) {
        cut = i + 1;
        break;
      }
    }
    writeFileSync(input, text.slice(0, cut));
  }
  for (const preset of ['tiny-4L-312', 'bioformer-8L']) {
    const labels = ['O', 'B-Disease', 'I-Disease'];
    const config = withTaskMeta(
      presetConfig(preset, 'bert', vocab.length, labels, 'token-classification'),
      { task: 'ner', maxLength: 128, stride: 31 },
    );
    const dir = path.join(OUT, 'models', `random-${preset}`);
    saveHfFolder(dir, {
      config,
      weights: initWeights(config, 1),
      vocab,
      tokenizer: {
        doLowerCase: true,
        stripAccents: null,
        tokenizeChineseChars: true,
        modelMaxLength: 512,
        specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
      },
    });
    console.error(`\n== throughput: ${preset} on MTSamples (${num('threads') ?? 2} threads) ==`);
    const ctx = cliContext();
    const r: PredictResult = await predict(
      {
        model: dir,
        input,
        out: path.join(OUT, `mtsamples-${preset}.jsonl`),
        format: 'jsonl',
        csv: { textColumn: 4, header: false },
        threads: num('threads') ?? 2,
      },
      ctx,
    );
    ctx.close();
    throughput.push({
      model: preset,
      documents: r.documents,
      words: r.words,
      seconds: r.seconds,
      documents_per_sec: r.documentsPerSec,
      words_per_sec: r.wordsPerSec,
    });
  }
}

const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? '?', node: process.version },
  options: o,
  runs,
  throughput,
};
mkdirSync(OUT, { recursive: true });
const stem = o.name ? `ner-re-figures-${o.name}` : 'ner-re-figures';
writeFileSync(path.join(OUT, `${stem}.json`), `${JSON.stringify(result, null, 2)}\n`);
const f = (x: unknown): string => (typeof x === 'number' ? x.toFixed(4) : '–');
const md = [
  `# NER / RE figures (${result.date}, ${result.machine.cpus} CPUs, ${result.machine.cpu})`,
  '',
  '| dataset | task | model | status | steps | train time | dev F1 | test P | test R | test F1 | AUROC |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...runs.map((r) => {
    const t = (r['test'] ?? {}) as Record<string, number>;
    return `| ${String(r['dataset'])} | ${String(r['task'])} | ${String(r['preset'])} | ${String(r['status'])} | ${String(r['steps'])}/${String(r['total_steps'])} | ${Number(r['train_sec']).toFixed(0)} s | ${f(r['dev_f1'])} | ${f(t['precision'])} | ${f(t['recall'])} | ${f(t['f1'])} | ${f(t['auroc'])} |`;
  }),
  '',
  'NER: entity-level strict micro F1. RE: micro F1 over the positive classes (negative excluded).',
  '',
  '| prediction model (random weights) | documents | words | seconds | documents/s | words/s |',
  '|---|---|---|---|---|---|',
  ...throughput.map(
    (t) =>
      `| ${String(t['model'])} | ${String(t['documents'])} | ${String(t['words'])} | ${Number(t['seconds']).toFixed(1)} | ${Number(t['documents_per_sec']).toFixed(2)} | ${Number(t['words_per_sec']).toFixed(0)} |`,
  ),
  '',
];
writeFileSync(path.join(OUT, `${stem}.md`), md.join('\n'));
console.log(md.join('\n'));
