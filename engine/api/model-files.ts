// The files of a model folder that Benchtop copies: models:import-folder and models:export.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonObject } from '../checkpoints/tokenizer-files.ts';

/**
 * What a model folder holds besides its weights, copied when present by an import and an export
 * (an export writes lineage.json anew, with the library's status). A Benchtop model's training
 * card and metrics travel with it: an exported model imported elsewhere keeps them. Not listed:
 * private-fingerprints.bin, which an import keeps (checked) and an export leaves out (models.ts).
 */
export const MODEL_COMPANIONS = [
  'config.json',
  'vocab.txt',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'README.md',
  'training_card.md',
  'metrics.json',
  'lineage.json',
];

/**
 * A model card's "## Privacy and lineage" sections (to the next heading of that level, or the
 * end), as an export writes them: they state the status of the library that exported it, which
 * the model's status here may exceed, so an import keeps the card without them and an export
 * writes its own.
 */
export const PRIVACY_SECTION = /^## Privacy and lineage[ \t]*\r?\n[\s\S]*?(?=^#{1,2}[ \t]|(?![\s\S]))/gm;

/**
 * Throws a CheckpointError naming the file unless the folder's metrics.json, where it has one, is
 * a JSON object (as every run writes it): an import and an export copied a damaged one as it was.
 * The tokenizer files are checked by the loader (checkpoints/), lineage.json where it is read.
 */
export function checkMetricsFile(dir: string): void {
  const file = join(dir, 'metrics.json');
  if (existsSync(file)) readJsonObject(file, 'the results of the run that made the model, such as {"test": {"micro": {"f1": 0.81}}}');
}

const isScore = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;

/**
 * The library's summary of a Benchtop metrics.json (dev_ and test_ micro precision, recall and F1,
 * steps), as a run of this library records it for its own model: an exported model imported
 * elsewhere listed "No evaluation recorded" though its metrics.json travelled with it. Anything
 * else in the file (another tool's) gives nothing; the file itself is kept as it is.
 */
export function summaryMetrics(dir: string): Record<string, number> {
  const file = join(dir, 'metrics.json');
  if (!existsSync(file)) return {};
  const json = readJsonObject(file, 'the results of the run that made the model');
  const out: Record<string, number> = {};
  for (const split of ['dev', 'test'] as const) {
    const section = json[split];
    const micro = typeof section === 'object' && section !== null ? (section as Record<string, unknown>)['micro'] : undefined;
    if (typeof micro !== 'object' || micro === null) continue;
    const m = micro as Record<string, unknown>;
    for (const name of ['precision', 'recall', 'f1'] as const) if (isScore(m[name])) out[`${split}_${name}`] = m[name];
  }
  const steps = json['steps'];
  if (Number.isInteger(steps) && (steps as number) >= 0) out['steps'] = steps as number;
  return out;
}
