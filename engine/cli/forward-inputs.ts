// The --inputs file of `benchtop forward`: read, parsed and checked (nesting, ragged rows,
// misspelt keys, shapes and value ranges) before the model sees it.

import type { EncoderConfig } from '../model/config.ts';
import { jsonSyntaxDetail } from '../io/json-error.ts';
import { InputFileError, readInputFile } from '../io/input-file.ts';
import { CheckpointError } from '../checkpoints/errors.ts';
import { jsonText } from '../checkpoints/tokenizer-files.ts';
import { editDistance, UsageError } from './args.ts';

/** The integers of input `what` of `file`, flat, and its dims; refuses ragged, non-integer and too deeply nested arrays. */
export function flatten(x: unknown, what: string, file: string): { dims: number[]; values: number[] } {
  const dims: number[] = [];
  let cur: unknown = x;
  while (Array.isArray(cur)) {
    // Inputs are [batch][seq] or [batch]: 20,000 nested brackets overflowed the stack of walk().
    if (dims.length === 2) throw new UsageError(`${file}: "${what}" is nested more than 2 levels deep; it must be [batch][seq] (or [batch] for the labels of sequence classification)`);
    dims.push(cur.length);
    cur = cur[0];
  }
  // Every row must have the first row's shape all the way down: .flat() alone took
  // [[2, [5]], [3, 4]] as four ids of a [2, 2] batch.
  const values: unknown[] = [];
  let ragged = false;
  const walk = (v: unknown, depth: number): void => {
    if (depth === dims.length) {
      if (Array.isArray(v)) ragged = true;
      else values.push(v);
    } else if (!Array.isArray(v) || v.length !== dims[depth]) ragged = true;
    else for (const e of v) walk(e, depth + 1);
  };
  walk(x, 0);
  if (values.some((v) => typeof v !== 'number' || !Number.isInteger(v))) throw new UsageError(`${file}: "${what}" must hold integers`);
  if (ragged) throw new UsageError(`${file}: "${what}" is ragged; pad every row to the same length`);
  return { dims, values: values as number[] };
}

export const INPUT_KEYS = ['input_ids', 'attention_mask', 'token_type_ids', 'labels'];

/**
 * Refuses keys that would otherwise be dropped without a word and change the result: a model
 * input of Hugging Face's that forward does not take, or a misspelt input ("attention_maks"
 * gave unmasked logits). Other keys (texts, tokens: notes beside the inputs) are left alone.
 */
export function checkInputKeys(raw: Record<string, unknown>, inFile: string): void {
  for (const key of Object.keys(raw)) {
    if (INPUT_KEYS.includes(key)) continue;
    if (['position_ids', 'head_mask', 'inputs_embeds'].includes(key)) {
      throw new UsageError(`${inFile}: "${key}" is not an input benchtop forward takes (it reads ${INPUT_KEYS.join(', ')}; positions always run 0..seq-1); leave it out`);
    }
    const plain = (k: string): string => k.toLowerCase().replace(/[^a-z]/g, '');
    const near = INPUT_KEYS.find((k) => editDistance(plain(key), plain(k)) <= 2);
    if (near) throw new UsageError(`${inFile}: unknown input "${key}"; did you mean "${near}"?`);
  }
}

/** Shapes and value ranges of the optional inputs, checked before onnxruntime sees them. */
export function checkForwardInputs(raw: Record<string, unknown>, ids: { dims: number[] }, config: EncoderConfig, inFile: string): void {
  const [batch, seq] = ids.dims as [number, number];
  const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);
  const check = (key: string, dims: number[], lo: number, hi: number, what: string, allowIgnore = false): void => {
    if (raw[key] === undefined) return;
    const f = flatten(raw[key], key, inFile);
    if (!same(f.dims, dims)) throw new UsageError(`${inFile}: "${key}" has shape [${f.dims.join(', ')}] but must be [${dims.join(', ')}] to match "input_ids"`);
    const bad = f.values.find((v) => (v < lo || v > hi) && !(allowIgnore && v === -100));
    if (bad !== undefined) throw new UsageError(`${inFile}: "${key}" holds ${bad}; ${what}`);
  };
  check('attention_mask', [batch, seq], 0, 1, 'an attention mask holds 0 (padding) or 1');
  if (config.typeVocabSize === 0 && raw['token_type_ids'] !== undefined) {
    throw new UsageError(`${inFile}: a ${config.architecture} model has no token type embeddings, so it takes no "token_type_ids"; leave them out`);
  }
  check('token_type_ids', [batch, seq], 0, config.typeVocabSize - 1, `token type ids run from 0 to ${config.typeVocabSize - 1}`);
  if (raw['labels'] === undefined) return;
  const classes = `class ids run from 0 to ${config.numLabels - 1} (${config.numLabels} labels)`;
  if (config.task === 'token-classification') check('labels', [batch, seq], 0, config.numLabels - 1, `${classes}, or -100 for tokens without a label`, true);
  // -100 is ignored as Hugging Face's CrossEntropyLoss ignores it (its default ignore_index).
  else if (config.task === 'sequence-classification') check('labels', [batch], 0, config.numLabels - 1, `${classes}, or -100 for a sequence without a label`, true);
  else if (config.task === 'masked-lm') check('labels', [batch, seq], 0, config.vocabSize - 1, `masked-LM labels are token ids from 0 to ${config.vocabSize - 1}, or -100 for unmasked tokens`, true);
  else throw new UsageError(`${inFile}: a base encoder has no task head, so "labels" (and --grads) do not apply`);
}

/** The largest --inputs file read (V8 strings end near 512 M characters). */
const MAX_INPUTS_BYTES = 256 * 1024 * 1024;

/**
 * The parsed --inputs file: a regular file only (a pipe or /dev/zero hung the command), its
 * system errors in words, UTF-8 with or without a byte-order mark as config.json.
 */
export function readInputsJson(inFile: string): unknown {
  let bytes: Uint8Array;
  try {
    bytes = readInputFile(inFile, MAX_INPUTS_BYTES, 'split the batch into several files');
  } catch (e) {
    if (e instanceof InputFileError) throw new UsageError(e.message);
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file; check the path' : code === 'EACCES' || code === 'EPERM' ? 'permission denied: you may not read it' : (e as Error).message;
    throw new UsageError(`${inFile}: cannot read inputs JSON (${why})`);
  }
  let text: string;
  try {
    text = jsonText(bytes, inFile); // UTF-8 only (PowerShell 5's ">" writes UTF-16)
  } catch (e) {
    throw e instanceof CheckpointError ? new UsageError(e.message) : e;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`${inFile}: cannot read inputs JSON (${jsonSyntaxDetail(e)})`);
  }
}
