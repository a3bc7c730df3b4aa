// Finds private text inside transfer text whatever its file format: an export of the PHI
// documents as JSONL, CSV, PubTator or brat, the file they were imported from, notes pasted into
// a bigger file or re-wrapped. Both sides become lower-case words; a private document leaves the
// hash of all its words and of a content-chosen quarter of its 8-word runs (its fingerprints, so
// the same run is chosen on both sides), kept sorted in a typed array (8 bytes each: about 25 MB
// for 10,000 notes of 1,000 words). Hashes are 52 bits, so a chance match is negligible.

const RUN = 8;
/** A run is a fingerprint when two bits of its hash are zero: a quarter of them. */
const SAMPLE_MASK = 3;

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

/** The hash of a whole text (at least 5 words, else none) and the hashes of its fingerprint runs. */
function hashesOf(text: string): { whole: number | undefined; runs: number[] } {
  const ws = words(text);
  const [a, b] = wordHashes(ws);
  const runs: number[] = [];
  for (let i = 0; i + RUN <= ws.length; i++) {
    const { hash, isSampled } = spanHash(a, b, i, i + RUN);
    if (isSampled) runs.push(hash);
  }
  return { whole: ws.length >= 5 ? spanHash(a, b, 0, ws.length).hash : undefined, runs };
}

function sorted(values: number[]): Float64Array {
  return Float64Array.from(values).sort();
}

function has(set: Float64Array, value: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = set[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Fingerprints of private texts, to look for in other text. */
export interface PrivateFingerprints {
  /** How much of `text` is private: whether it is a whole private text, its fingerprints found among its `sampled`. */
  match(text: string): { isWhole: boolean; runs: number; sampled: number };
}

export function privateFingerprints(texts: Iterable<string>): PrivateFingerprints {
  const wholes: number[] = [];
  const runs: number[] = [];
  for (const t of texts) {
    const h = hashesOf(t);
    if (h.whole !== undefined) wholes.push(h.whole);
    for (const r of h.runs) runs.push(r);
  }
  const wholeSet = sorted(wholes);
  const runSet = sorted(runs);
  return {
    match(text) {
      const h = hashesOf(text);
      return { isWhole: h.whole !== undefined && has(wholeSet, h.whole), runs: h.runs.filter((r) => has(runSet, r)).length, sampled: h.runs.length };
    },
  };
}
