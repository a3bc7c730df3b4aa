// Prediction in chunks of whole documents: entities and then relations of a few hundred thousand
// characters of documents at a time (length-sorted batches inside each chunk, as over the whole
// input before), so that at any moment the documents of the chunks done are finished, entities
// and relations both. A stop that asks to keep them (TaskContext.keepsFinished) ends with those
// documents and names the rest; a plain stop keeps nothing, as before.

import type { Document } from '../formats/types.ts';
import { CancelledError } from './batching.ts';
import type { TaskContext } from './events.ts';

/**
 * Characters of text predicted together: about 25,000 tokens, some 250 windows of 128, so a chunk
 * fills several length-sorted batches (their padding, and so the speed, is as over the whole
 * input), while a stop keeps all but the last seconds of work.
 */
export const CHUNK_CHARS = 100_000;

/** Consecutive [start, end) ranges of `docs`, each about `chars` of text and at least one document. */
export function documentChunks(docs: readonly { text: string }[], chars = CHUNK_CHARS): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let size = 0;
  docs.forEach((d, i) => {
    size += d.text.length;
    if (size >= chars) {
      out.push([start, i + 1]);
      start = i + 1;
      size = 0;
    }
  });
  if (start < docs.length) out.push([start, docs.length]);
  return out;
}

/** One chunk's predictions: its documents with entities and relations, and their words. */
export interface ChunkResult {
  docs: Document[];
  words: number;
}

/** Predicts one chunk; `part(phase share)` gives the context whose progress counts in documents. */
export type PredictChunk = (
  docs: readonly Document[],
  first: number,
  part: (from: number, width: number) => TaskContext,
) => Promise<ChunkResult>;

/** The documents finished, in input order, and the indexes of those not run when a stop kept them. */
export interface ChunkedPrediction {
  out: Document[];
  words: number;
  /** Present when a stop kept the finished documents: the input indexes left out (maybe none). */
  notRun?: number[];
}

/**
 * Inference progress of a part of a chunk ([from, from + width) of its share), as documents of
 * the whole run: the progress bar moves through the run once, whatever the chunk and phase.
 */
function partContext(ctx: TaskContext, base: number, size: number, total: number, from: number, width: number): TaskContext {
  return {
    isCancelled: () => ctx.isCancelled(),
    keepsFinished: () => ctx.keepsFinished?.() === true,
    emit: (e) => {
      if (e.type !== 'infer-progress') return ctx.emit(e);
      const frac = from + (width * e.done) / Math.max(1, e.total);
      ctx.emit({ ...e, done: base + Math.min(size, Math.floor(size * frac)), total });
    },
  };
}

/**
 * Runs `predictChunk` over `docs` chunk by chunk. A stop (CancelledError, or one asked for after
 * the last chunk) ends it: with keepsFinished, with the finished documents; without, by throwing
 * (nothing is kept). A stop before any document finished keeps nothing either way.
 */
export async function predictInChunks(
  docs: readonly Document[],
  predictChunk: PredictChunk,
  ctx: TaskContext,
  chars: number = CHUNK_CHARS,
): Promise<ChunkedPrediction> {
  const out: Document[] = [];
  let words = 0;
  const keeps = (): boolean => ctx.keepsFinished?.() === true && out.length > 0;
  for (const [start, end] of documentChunks(docs, chars)) {
    let r: ChunkResult;
    try {
      r = await predictChunk(docs.slice(start, end), start, (from, width) =>
        partContext(ctx, start, end - start, docs.length, from, width),
      );
    } catch (err) {
      if (err instanceof CancelledError && keeps()) return { out, words, notRun: indexes(start, docs.length) };
      throw err;
    }
    out.push(...r.docs);
    words += r.words;
    ctx.emit({ type: 'infer-progress', phase: 'ner', done: end, total: docs.length });
  }
  // A stop asked for after the last batch: a plain one still writes nothing (it was written
  // regardless, while the workbench said "Stopped; nothing was saved"); a keeping one, all.
  if (ctx.isCancelled()) {
    if (!keeps()) throw new CancelledError();
    return { out, words, notRun: [] };
  }
  return { out, words };
}

function indexes(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}
