// What a finished training run writes next to the model: metrics.json (dev/test metrics,
// per-evaluation history, per-step losses, settings, wall time, data lineage with sha256) and a
// human-readable training_card.md. Plain data in, strings out; no file I/O here.

import type { MetricsJson } from '../metrics/report.ts';
import type { EvalRecord } from './checkpoint.ts';
import type { DataSource } from './data-load.ts';
import { type VocabularyRecord, vocabularySentence } from '../distill/vocab-origin.ts';
import type { PhiStatus } from '../store/models.ts';
import type { LoopResult } from './train-loop.ts';

/** The metrics.json object of a training run. */
export interface TrainMetrics {
  task: 'ner' | 're';
  status: LoopResult['status'];
  /** Dev metrics of the kept (best) model. */
  dev: MetricsJson | null;
  test: MetricsJson | null;
  best: { step: number; epoch: number; dev_f1: number } | null;
  history: {
    step: number;
    epoch: number;
    train_loss: number;
    dev_f1: number;
    dev_micro: MetricsJson['micro'];
  }[];
  losses: number[];
  steps: number;
  total_steps: number;
  wall_time_sec: number;
  resumed_from_step: number | null;
  config: Record<string, unknown>;
  model: {
    origin: string;
    architecture: string;
    parameters: number;
    labels: string[];
    new_parameters: number;
    /** Where vocab.txt came from (engine/distill/vocab-origin.ts). */
    vocabulary: VocabularyRecord;
    /** The PHI status the starting folder's own record gave its weights (`benchtop train --model`). */
    phi_status?: PhiStatus;
  };
  data: {
    train: DataSource[];
    dev: DataSource[];
    test: DataSource[];
    split: string;
    counts: Record<string, number>;
  };
  issues: { errors: number; warnings: number };
}

const f4 = (x: number | undefined): string =>
  x === undefined || Number.isNaN(x) ? '–' : x.toFixed(4);

function table(title: string, m: MetricsJson | null): string[] {
  if (!m) return [];
  const rows = [`### ${title}`, '', '| | precision | recall | F1 |', '|---|---|---|---|'];
  for (const [k, v] of Object.entries(m.per_type))
    rows.push(`| ${k} | ${f4(v.precision)} | ${f4(v.recall)} | ${f4(v.f1)} |`);
  rows.push(`| **micro** | ${f4(m.micro.precision)} | ${f4(m.micro.recall)} | ${f4(m.micro.f1)} |`);
  rows.push(`| **macro** | ${f4(m.macro.precision)} | ${f4(m.macro.recall)} | ${f4(m.macro.f1)} |`);
  if (m.auroc !== undefined) rows.push('', `AUROC: ${f4(m.auroc)}`);
  return [...rows, ''];
}

/**
 * Markdown training card: what was trained, on what, how, and how well. `vocabularyFrom` names
 * where vocab.txt came from in the card's own words (vocab-origin.ts vocabularySentence).
 */
export function trainingCard(m: TrainMetrics, vocabularyFrom?: string): string {
  const what =
    m.task === 'ner'
      ? 'named-entity recognition (token classification, IOB2)'
      : 'relation extraction (sequence classification over @TYPE$-masked entity pairs)';
  const files = (list: DataSource[]): string[] =>
    list.map((f) =>
      'path' in f
        ? `- \`${f.path}\` (${f.bytes} bytes, sha256 \`${f.sha256}\`)`
        : `- workspace documents${f.label !== undefined ? ` ${f.label}` : ''} (${f.documents} documents, sha256 of the texts \`${f.sha256}\`)`,
    );
  const lines = [
    `# Training card`,
    '',
    `Task: ${what}. Labels: ${m.model.labels.join(', ')}.`,
    `Started from: ${m.model.origin} (${m.model.architecture}, ${m.model.parameters.toLocaleString('en-US')} parameters; ${m.model.new_parameters} newly initialised).`,
    ...(m.model.phi_status !== undefined ? [`The starting weights' own record gave their PHI status as ${m.model.phi_status}.`] : []),
    vocabularySentence(m.model.vocabulary, vocabularyFrom),
    `Status: ${m.status} after ${m.steps} of ${m.total_steps} steps in ${m.wall_time_sec.toFixed(1)} s${m.resumed_from_step !== null ? ` (resumed from step ${m.resumed_from_step})` : ''}.`,
    m.best
      ? `Kept model: step ${m.best.step} (epoch ${m.best.epoch.toFixed(2)}), dev F1 ${f4(m.best.dev_f1)}.`
      : 'Kept model: the last weights (no dev evaluation).',
    '',
    '## Data',
    '',
    'Training data (these fed the gradients):',
    ...files(m.data.train),
    '',
    `Dev: ${m.data.split}.`,
    ...files(m.data.dev),
    ...(m.data.test.length > 0 ? ['', 'Test files:', ...files(m.data.test)] : []),
    '',
    `Counts: ${Object.entries(m.data.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}. Input issues: ${m.issues.errors} errors, ${m.issues.warnings} warnings.`,
    '',
    '## Settings',
    '',
    ...Object.entries(m.config).map(([k, v]) => `- ${k}: ${JSON.stringify(v)}`),
    '',
    '## Results',
    '',
    ...(m.task === 'ner'
      ? ['Entity-level, strict (exact character span and type).', '']
      : [`Micro/macro over the positive classes (negative label excluded).`, '']),
    ...table('Dev', m.dev),
    ...table('Test', m.test),
    '## History',
    '',
    '| step | epoch | train loss | dev F1 |',
    '|---|---|---|---|',
    ...m.history.map(
      (h) => `| ${h.step} | ${h.epoch.toFixed(2)} | ${h.train_loss.toFixed(4)} | ${f4(h.dev_f1)} |`,
    ),
    '',
    'Trained offline with Benchtop. Check the data licences above before sharing this model; models trained on',
    'clinical text may memorise protected health information.',
    '',
  ];
  return lines.join('\n');
}

/** History rows for metrics.json. */
export function historyRows(history: readonly EvalRecord[]): TrainMetrics['history'] {
  return history.map((h) => ({
    step: h.step,
    epoch: h.epoch,
    train_loss: h.trainLoss,
    dev_f1: h.devF1,
    dev_micro: h.dev.micro,
  }));
}
