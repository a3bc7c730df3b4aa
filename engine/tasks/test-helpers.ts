// Test-only helpers for the task tests: shared data paths, small real-data subsets written to a
// temp folder, a tokenizer for the bert-base-uncased vocabulary, "perfect" logits built from
// encoded labels and seeded random-weight task models. Not used by the product.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { saveHfFolder } from '../checkpoints/hf-folder.ts';
import type { Document, Entity, Relation } from '../formats/types.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { WordPieceTokenizer } from '../text/wordpiece.ts';
import { IGNORE, type Encoded } from './batching.ts';
import type { TaskContext, TaskEvent } from './events.ts';
import { type TaskMeta, withTaskMeta } from './model-setup.ts';

/** The shared reference data folder. */
export const DATA = path.join(process.env['BENCHTOP_SHARED'] ?? '/work/shared', 'data');
export const VOCAB = path.join(DATA, 'vocab', 'bert-base-uncased-vocab.txt');
export const HAS_DATA = existsSync(VOCAB);

let cached: WordPieceTokenizer | undefined;

/** bert-base-uncased WordPiece tokenizer (cached). */
export function bertTokenizer(): WordPieceTokenizer {
  cached ??= WordPieceTokenizer.fromVocabFile(VOCAB);
  return cached;
}

const made: string[] = [];

/** A fresh temp folder (removed by removeTempDirs). */
export function tempDir(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `benchtop-${tag}-`));
  made.push(dir);
  return dir;
}

/** Removes the folders made by tempDir (call from afterAll). */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Sentences [from, to) of a CoNLL file (only those with an entity when asked), written to `dir/name`. */
export function conllSubset(
  src: string,
  from: number,
  to: number,
  dir: string,
  name: string,
  withEntities = false,
): string {
  const blocks = readFileSync(src, 'utf8')
    .split(/\r?\n\s*\r?\n/)
    .filter((b) => b.trim() !== '' && (!withEntities || /\tB-/.test(b)));
  const file = path.join(dir, name);
  writeFileSync(file, `${blocks.slice(from, to).join('\n\n')}\n`);
  return file;
}

/** Every `every`-th data line of a TSV (header kept), written to `dir/name`. */
export function tsvSubset(
  src: string,
  every: number,
  limit: number,
  dir: string,
  name: string,
  header: boolean,
): string {
  const lines = readFileSync(src, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const body = (header ? lines.slice(1) : lines).filter((_, i) => i % every === 0).slice(0, limit);
  const file = path.join(dir, name);
  writeFileSync(file, `${[...(header ? [lines[0]] : []), ...body].join('\n')}\n`);
  return file;
}

/** Logits [len, L] with a clear winner: the encoded label where labelled, else `fallback`. */
export function perfectLogits(e: Encoded, L: number, fallback = 0): Float32Array {
  const labels = e.labels as number[];
  const out = new Float32Array(e.ids.length * L);
  labels.forEach((l, t) => (out[t * L + (l === IGNORE ? fallback : l)] = 10));
  return out;
}

/**
 * A seeded random-weight task model folder (small-2L-128 over the bert-base-uncased vocabulary)
 * for tests that need a model's plumbing, not its skill.
 */
export function randomTaskModel(dir: string, meta: TaskMeta, labels: string[], seed = 1): string {
  const vocab = readFileSync(VOCAB, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const task = meta.task === 'ner' ? 'token-classification' : 'sequence-classification';
  const config = withTaskMeta(
    presetConfig('small-2L-128', 'bert', vocab.length, labels, task),
    meta,
  );
  saveHfFolder(dir, {
    config,
    weights: initWeights(config, seed),
    vocab,
    tokenizer: {
      doLowerCase: true,
      stripAccents: null,
      tokenizeChineseChars: true,
      modelMaxLength: config.maxPositions,
      specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
    },
  });
  return dir;
}

/** The first `n` documents of a PubTator file, written to `dir/name`. */
export function pubtatorSubset(src: string, n: number, dir: string, name: string): string {
  const blocks = readFileSync(src, 'utf8')
    .split(/\r?\n\s*\r?\n/)
    .filter((b) => b.trim() !== '');
  const file = path.join(dir, name);
  writeFileSync(file, `${blocks.slice(0, n).join('\n\n')}\n`);
  return file;
}

/**
 * A task context cancelled `ms` after its first look (a timer: it fires only if the work yields),
 * recording the events it is sent and when the cancel came (`at`, performance.now()).
 */
export function cancelAfter(ms: number): TaskContext & { at: () => number; events: TaskEvent[] } {
  let flag = false;
  let at = 0;
  let armed = false;
  const events: TaskEvent[] = [];
  return {
    events,
    emit: (e) => events.push(e),
    isCancelled: () => {
      if (!armed) {
        armed = true;
        setTimeout(() => {
          flag = true;
          at = performance.now();
        }, ms);
      }
      return flag;
    },
    at: () => at,
  };
}

/** One "sentence" listing `n` entities, Chemical and Disease in turn (a pasted medication list). */
export function entityListDocument(n: number, id = 'list', relations: Relation[] = []): Document {
  const words = ['aspirin', 'hypertension', 'metformin', 'diabetes', 'lisinopril', 'asthma'];
  let text = 'Medications: ';
  const entities: Entity[] = [];
  for (let i = 0; i < n; i++) {
    const w = words[i % words.length] as string;
    const start = text.length;
    text += `${w} 10 mg, `;
    entities.push({ id: `T${i}`, type: i % 2 === 0 ? 'Chemical' : 'Disease', spans: [{ start, end: start + w.length }], text: w });
  }
  return { id, text: `${text}end.`, entities, relations };
}
