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
