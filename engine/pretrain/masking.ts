// Masked-language-model batches: BERT's 15% selection with 80/10/10 replacement ([MASK] /
// random token / unchanged), optional whole-word masking, drawn anew for every batch (dynamic
// masking, as RoBERTa and the HF data collator do). Seeded and reproducible.

import { rng } from '../random.ts';

export interface MaskingOptions {
  probability?: number; // default 0.15
  wholeWord?: boolean;
  maskId: number;
  /** Random replacements are drawn from ids 0 … vocabSize - 1 (HF: `len(tokenizer)`). */
  vocabSize: number;
  /** Ids that are never selected: [CLS], [SEP], [PAD], … and added tokens marked special (HF special_tokens_mask). */
  specialIds: { has(id: number): boolean };
}

export interface MaskedSequence {
  inputIds: number[];
  /** Original id at selected positions, -100 elsewhere. */
  labels: number[];
}

/** A seeded masker; call `mask` once per sequence per batch (dynamic masking). */
export function createMasker(opts: MaskingOptions, seed: number): (ids: readonly number[], wordStarts?: readonly boolean[]) => MaskedSequence {
  const rand = rng(seed);
  const p = opts.probability ?? 0.15;
  return (ids, wordStarts) => {
    const inputIds = [...ids];
    const labels = ids.map(() => -100);
    // Candidate units: single positions, or whole words (a start piece plus its ## pieces).
    const units: number[][] = [];
    for (let i = 0; i < ids.length; i++) {
      if (opts.specialIds.has(ids[i] as number)) continue;
      const continues = opts.wholeWord && wordStarts && !wordStarts[i] && units.length > 0;
      const last = units[units.length - 1];
      if (continues && last && last[last.length - 1] === i - 1) last.push(i);
      else units.push([i]);
    }
    for (const unit of units) {
      if (rand() >= p) continue;
      const r = rand();
      for (const i of unit) {
        labels[i] = ids[i] as number;
        if (r < 0.8) inputIds[i] = opts.maskId;
        else if (r < 0.9) inputIds[i] = Math.floor(rand() * opts.vocabSize);
      }
    }
    return { inputIds, labels };
  };
}
