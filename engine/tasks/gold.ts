// Refusals for evaluation data with nothing to score against: an F1 of 0 over no gold at all
// reads as a terrible model, when the real problem is the file (wrong format, no annotations).

import type { Document } from '../formats/types.ts';

/** Throws unless some of `docs` (read from `name`, the role e.g. "test data") have entities. */
export function requireNerGold(docs: readonly Document[], name: string): void {
  if (docs.length === 0) throw new Error(`${name}: no documents could be read, so there is nothing to score against (see the problems listed above)`);
  if (!docs.some((d) => d.entities.length > 0))
    throw new Error(
      `${name}: none of the ${docs.length} document${docs.length === 1 ? '' : 's'} has annotated entities, so there is nothing to score against; ` +
        'give annotated data (CoNLL/IOB2, PubTator, brat, BioC, JSONL)',
    );
}

/** Throws unless there are relation examples (entity pairs) to score. */
export function requireReGold(examples: number, name: string): void {
  if (examples === 0)
    throw new Error(
      `${name}: no entity pairs to score (no readable examples, or no pair of the types the model relates); ` +
        'give annotated relation data (TSV with @ markers, PubTator, BioC, brat, JSONL)',
    );
}
