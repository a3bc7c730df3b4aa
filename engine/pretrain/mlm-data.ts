// Masked-LM training data streamed from raw text: paragraphs are WordPiece-tokenized and packed
// into contiguous blocks of `maxLength - 2` pieces ([CLS] … [SEP], as BERT's pretraining data),
// shuffled through a seeded buffer per epoch, and masked anew for every batch (dynamic masking)
// with the batch's own seed, so a resumed run sees exactly the batches an uninterrupted one would.
// Every `holdoutEvery`-th paragraph is held out for the MLM evaluation loss.

import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import type { Batch } from '../train/trainer.ts';
import { createRng, mixSeed } from '../random.ts';
import { createMasker } from './masking.ts';
import { textParagraphs } from './text-files.ts';

/** One packed input: ids with [CLS]/[SEP] and which pieces start a word. */
export interface MlmBlock {
  ids: number[];
  wordStarts: boolean[];
}

/** How blocks are made. */
export interface BlockOptions {
  maxLength: number;
  /** Training blocks skip, evaluation blocks keep, every `holdoutEvery`-th paragraph (0: none held out). */
  holdoutEvery: number;
  part: 'train' | 'eval';
  /** Shuffle buffer size in blocks (0: stream order). */
  shuffleBuffer: number;
  seed: number;
}

/** Packed blocks of the files (one pass), shuffled through a seeded buffer. */
export function* mlmBlocks(files: readonly string[], tok: WordPieceTokenizer, opts: BlockOptions): Generator<MlmBlock> {
  const n = opts.maxLength - 2;
  if (n < 8) throw new Error(`max length ${opts.maxLength} is too short for masked-LM blocks`);
  const rng = createRng(opts.seed);
  const buffer: MlmBlock[] = [];
  let ids: number[] = [];
  let starts: boolean[] = [];
  let k = 0;
  const emit = function* (block: MlmBlock): Generator<MlmBlock> {
    if (opts.shuffleBuffer <= 0) {
      yield block;
      return;
    }
    buffer.push(block);
    if (buffer.length >= opts.shuffleBuffer) {
      const i = Math.floor(rng.next() * buffer.length);
      const out = buffer[i] as MlmBlock;
      buffer[i] = buffer[buffer.length - 1] as MlmBlock;
      buffer.pop();
      yield out;
    }
  };
  for (const para of textParagraphs(files)) {
    const held = opts.holdoutEvery > 0 && k++ % opts.holdoutEvery === 0;
    if (held !== (opts.part === 'eval')) continue;
    const r = tok.tokenize(para);
    for (let p = 0; p < r.ids.length; p++) {
      ids.push(r.ids[p] ?? tok.unkId);
      starts.push(p === 0 || r.wordIds[p] !== r.wordIds[p - 1]);
      if (ids.length === n) {
        yield* emit({ ids: [tok.clsId, ...ids, tok.sepId], wordStarts: [false, ...starts, false] });
        ids = [];
        starts = [];
      }
    }
  }
  if (ids.length >= 8) yield* emit({ ids: [tok.clsId, ...ids, tok.sepId], wordStarts: [false, ...starts, false] });
  while (buffer.length > 0) {
    const i = Math.floor(rng.next() * buffer.length);
    yield buffer.splice(i, 1)[0] as MlmBlock;
  }
}

/** Masking settings of a batch. */
export interface MaskSettings {
  tok: WordPieceTokenizer;
  wholeWord: boolean;
  probability?: number;
  /** The model's embedding rows (config vocab_size): at least every id of `tok`. */
  vocabSize: number;
}

/**
 * A padded MLM batch with gathered positions; the mask is drawn from `seed` (dynamic). As HF's
 * DataCollatorForLanguageModeling: special tokens (added ones marked special too, such as RE
 * markers) are never selected, and random replacements are any of the tokenizer's ids (added
 * tokens included; never an embedding row past them, which no text gives).
 */
export function mlmBatch(blocks: readonly MlmBlock[], m: MaskSettings, seed: number): Batch {
  if (m.tok.size > m.vocabSize)
    throw new Error(`the tokenizer gives ${m.tok.size} ids but the model has ${m.vocabSize} embedding rows (vocab_size): resize the embeddings to the tokenizer`);
  const special = { has: (id: number): boolean => m.tok.isSpecialId(id) };
  const masker = createMasker({ maskId: m.tok.maskId, vocabSize: m.tok.size, specialIds: special, wholeWord: m.wholeWord, probability: m.probability ?? 0.15 }, seed);
  const B = blocks.length;
  const T = Math.max(...blocks.map((b) => b.ids.length));
  const inputIds = new BigInt64Array(B * T).fill(BigInt(m.tok.padId));
  const attentionMask = new BigInt64Array(B * T);
  const positions: bigint[] = [];
  const labels: bigint[] = [];
  blocks.forEach((blk, b) => {
    let masked = masker(blk.ids, blk.wordStarts);
    if (!masked.labels.some((l) => l !== -100)) {
      // Short blocks can draw no mask: force one so every row teaches something.
      const at = blk.ids.findIndex((id, i) => i > 0 && !special.has(id));
      if (at > 0) masked = { inputIds: blk.ids.map((id, i) => (i === at ? m.tok.maskId : id)), labels: blk.ids.map((id, i) => (i === at ? id : -100)) };
    }
    masked.inputIds.forEach((id, t) => {
      inputIds[b * T + t] = BigInt(id);
      attentionMask[b * T + t] = 1n;
      const l = masked.labels[t] ?? -100;
      if (l !== -100) {
        positions.push(BigInt(b * T + t));
        labels.push(BigInt(l));
      }
    });
  });
  return { batchSize: B, seqLen: T, inputIds, attentionMask, labels: BigInt64Array.from(labels), mlmPositions: BigInt64Array.from(positions) };
}

/** Seed of the mask of batch `step` (1-based) of a run. */
export function batchMaskSeed(seed: number, step: number): number {
  return mixSeed(seed, 0x6d6c6d, step);
}
