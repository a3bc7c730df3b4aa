// WordPiece vocabulary loading: one token per line, id = line index, exactly like HF `load_vocab`.
// Does not know about special tokens or added tokens; the tokenizer layers those on top.

import { readFileSync } from 'node:fs';

/** Token → id and id → token tables; `idToToken` has holes where a duplicated line was overwritten. */
export interface Vocab {
  tokenToId: Map<string, number>;
  idToToken: (string | undefined)[];
  /** Number of lines (HF `vocab_size` is `len(vocab)`, i.e. distinct tokens; see `size`). */
  lines: number;
  /** Distinct tokens, HF's `len(self.vocab)`. */
  size: number;
}

/** Splits vocab file text into lines the way Python's universal-newline `readlines()` + `rstrip("\n")` does. */
export function parseVocabText(text: string): string[] {
  // A BOM is kept as part of the first token: Python's "utf-8" codec does not strip it either.
  if (text.length === 0) return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Reads a `vocab.txt` file (UTF-8) into its list of tokens. */
export function readVocabFile(path: string): string[] {
  return parseVocabText(readFileSync(path, 'utf8'));
}

/** Builds lookup tables; for duplicated tokens the last line wins, as in a Python dict. */
export function buildVocab(tokens: readonly string[]): Vocab {
  const tokenToId = new Map<string, number>();
  tokens.forEach((t, i) => tokenToId.set(t, i));
  const idToToken: (string | undefined)[] = new Array<string | undefined>(tokens.length);
  for (const [t, i] of tokenToId) idToToken[i] = t;
  return { tokenToId, idToToken, lines: tokens.length, size: tokenToId.size };
}
