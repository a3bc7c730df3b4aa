// Finds private text inside transfer text whatever its file format: an export of the PHI
// documents as JSONL, CSV, PubTator or brat, the file they were imported from, notes pasted into
// a bigger file or re-wrapped. Both sides become lower-case words; a private document leaves the
// hash of all its words and of a content-chosen quarter of its 8-word runs (its fingerprints, so
// the same run is chosen on both sides), kept sorted in typed arrays with the document each
// comes from (12 bytes each: about 30 MB for 10,000 notes of 1,000 words). A transfer file
// repeats a document when it holds most of that document's fingerprints (of each part of about
// 1,000 words of a longer one); other notes written from the same templates hold some. Hashes are 52 bits, so a chance match is negligible.

const RUN = 8;
/** A run is a fingerprint when two bits of its hash are zero: a quarter of them. */
const SAMPLE_MASK = 3;
/**
 * The most fingerprints of a document counted together (about 1,000 words): a longer one is
 * split into parts of consecutive runs (kept in text order), each of which a copy must repeat.
 */
const PART_RUNS = 256;

/** The words of a text, lower case (letters and digits; punctuation and layout dropped). */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Two 32-bit FNV-1a style hashes of a word (different primes), for the two lanes of a run hash. */
function wordHashes(ws: readonly string[]): [Uint32Array, Uint32Array] {
  const a = new Uint32Array(ws.length);
  const b = new Uint32Array(ws.length);
  ws.forEach((w, i) => {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let k = 0; k < w.length; k++) {
      const c = w.charCodeAt(k);
      h1 = Math.imul(h1 ^ c, 16777619);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    }
    a[i] = h1 >>> 0;
    b[i] = h2 >>> 0;
  });
  return [a, b];
}

/** 52-bit hash of words [from, to): 32 bits of one lane and 20 of the other. */
function spanHash(a: Uint32Array, b: Uint32Array, from: number, to: number): { hash: number; isSampled: boolean } {
  let h1 = 0x811c9dc5;
  let h2 = 0x27d4eb2f;
  for (let i = from; i < to; i++) {
    h1 = Math.imul(h1 ^ a[i]!, 16777619);
    h2 = Math.imul(h2 ^ b[i]!, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return { hash: (h1 >>> 0) * 0x100000 + ((h2 >>> 0) & 0xfffff), isSampled: ((h2 >>> 28) & SAMPLE_MASK) === 0 };
}

/** The hash of a whole text (at least 5 words, else none). */
function wholeHash(text: string): number | undefined {
  const ws = words(text);
  if (ws.length < 5) return undefined;
  const [a, b] = wordHashes(ws);
  return spanHash(a, b, 0, ws.length).hash;
}

/** The hashes of the fingerprint runs of a list of words. */
function runHashes(ws: readonly string[]): number[] {
  const [a, b] = wordHashes(ws);
  const runs: number[] = [];
  for (let i = 0; i + RUN <= ws.length; i++) {
    const { hash, isSampled } = spanHash(a, b, i, i + RUN);
    if (isSampled) runs.push(hash);
  }
  return runs;
}

/** Index of the first entry of the sorted `set` equal to `value`, or -1. */
function firstIndex(set: Float64Array, value: number): number {
  let lo = 0;
  let hi = set.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (set[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo < set.length && set[lo] === value ? lo : -1;
}

/** Fingerprints of private documents, to look for in other text. */
export interface PrivateFingerprints {
  /** Whether `text` is, as a whole, one of the private documents (case, punctuation and layout aside). */
  isWhole(text: string): boolean;
  /**
   * How many private documents (of at least two fingerprints; a long one counted as parts of
   * PART_RUNS fingerprints) have `share` or more of their fingerprints in `texts`, read as one
   * stream of words (a file's paragraphs, in order).
   */
  containedIn(texts: Iterable<string>, share: number): number;
}

/**
 * The fingerprints of documents as plain numbers (no text), for a file beside a model trained on
 * them (fingerprint-file.ts): whole-text hashes, then each document's count of fingerprint runs
 * and those runs' hashes, document after document.
 */
export interface FingerprintSet {
  wholes: Float64Array;
  counts: Uint32Array;
  runs: Float64Array;
}

/** The fingerprints of `texts` (see FingerprintSet). */
export function fingerprintSet(texts: Iterable<string>): FingerprintSet {
  const wholes: number[] = [];
  const counts: number[] = [];
  const runs: number[] = [];
  for (const t of texts) {
    const whole = wholeHash(t);
    if (whole !== undefined) wholes.push(whole);
    const own = [...new Set(runHashes(words(t)))];
    for (const r of own) runs.push(r);
    counts.push(own.length);
  }
  return { wholes: Float64Array.from(wholes), counts: Uint32Array.from(counts), runs: Float64Array.from(runs) };
}

/** Fingerprints of `texts` and of documents known only by their fingerprints (`recorded`). */
export function privateFingerprints(texts: Iterable<string>, recorded: readonly FingerprintSet[] = []): PrivateFingerprints {
  const wholes: number[] = [];
  const runs: number[] = [];
  const owners: number[] = [];
  const sampled: number[] = [];
  for (const set of [fingerprintSet(texts), ...recorded]) {
    for (const w of set.wholes) wholes.push(w); // not push(...): a large set overflows the stack
    let at = 0;
    for (const n of set.counts) {
      // A long document (a CoNLL file without document breaks is one) counts as parts of
      // consecutive fingerprints, each needing the share: else half of it passed as new text.
      const parts = Math.ceil(n / PART_RUNS);
      for (let p = 0; p < parts; p++) {
        const [from, to] = [at + Math.floor((p * n) / parts), at + Math.floor(((p + 1) * n) / parts)];
        const doc = sampled.length;
        for (let i = from; i < to; i++) {
          runs.push(set.runs[i]!);
          owners.push(doc);
        }
        sampled.push(to - from);
      }
      at += n;
    }
  }
  const wholeSet = Float64Array.from(wholes).sort();
  const order = Uint32Array.from(runs.keys()).sort((i, j) => runs[i]! - runs[j]!);
  const runSet = Float64Array.from(order, (i) => runs[i]!);
  const runOwner = Uint32Array.from(order, (i) => owners[i]!);
  return {
    isWhole(text) {
      const h = wholeHash(text);
      return h !== undefined && firstIndex(wholeSet, h) >= 0;
    },
    containedIn(stream, share) {
      const found = new Uint8Array(runSet.length);
      const counts = new Map<number, number>();
      let carry: string[] = [];
      for (const text of stream) {
        const ws = [...carry, ...words(text)];
        for (const r of runHashes(ws)) {
          for (let i = firstIndex(runSet, r); i >= 0 && i < runSet.length && runSet[i] === r; i++) {
            if (found[i] === 1) continue;
            found[i] = 1;
            counts.set(runOwner[i]!, (counts.get(runOwner[i]!) ?? 0) + 1);
          }
        }
        carry = ws.slice(-(RUN - 1));
      }
      let n = 0;
      for (const [doc, hits] of counts) if (sampled[doc]! >= 2 && hits >= share * sampled[doc]!) n++;
      return n;
    },
  };
}
