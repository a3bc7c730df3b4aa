// The shortest RE input that keeps both entity markers. `encodeRe` keeps [CLS], [SEP] and, when
// the two markers are further apart than the window, half the window from the first marker on
// and half up to the end of the second: each half must hold a whole @TYPE$ marker, whichever
// type comes first. Below that, inputs lose a marker (or both) and a model trains on, or is
// asked about, sentences that no longer say which entities the pair is.

import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { SettingError } from './setting-error.ts';

/** Word pieces of each marker `@TYPE$` of `pairs`, and the shortest input keeping any two. */
export function reMinLength(tok: WordPieceTokenizer, pairs: readonly (readonly [string, string])[]): { min: number; pieces: Map<string, number> } {
  const pieces = new Map<string, number>();
  for (const type of pairs.flat()) if (!pieces.has(type)) pieces.set(type, tok.tokenize(`@${type}$`).ids.length);
  const widest = Math.max(0, ...pieces.values());
  return { min: 2 + 2 * widest, pieces };
}

/**
 * Throws when `maxLength` cannot keep both markers of every candidate of `pairs` (see
 * reMinLength). `model` names the model whose recorded max length it is; without it, the length
 * is the user's --max-length.
 */
export function checkReMaxLength(tok: WordPieceTokenizer, pairs: readonly (readonly [string, string])[], maxLength: number, model?: string): void {
  const { min, pieces } = reMinLength(tok, pairs);
  if (pieces.size === 0 || maxLength >= min) return;
  const markers = [...pieces].map(([t, n]) => `@${t}$ ${n}`).join(', ');
  const why = `is too short for relation extraction: [CLS], [SEP] and both entity markers need ${min} word pieces (pieces per marker: ${markers}), or inputs lose a marker`;
  if (model !== undefined) throw new Error(`${model}: the model's max length ${maxLength} ${why}; train it again with --max-length ${min} or more`);
  throw new SettingError(`--max-length ${maxLength} ${why}; give --max-length ${min} or more`);
}
