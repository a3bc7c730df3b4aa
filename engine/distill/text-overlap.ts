// Finds private text inside transfer text whatever its file format: an export of the PHI
// documents as JSONL, CSV, PubTator or brat, the file they were imported from, notes pasted into
// a bigger file or re-wrapped. Both sides become lower-case words; a private document leaves the
// hash of all its words and of a content-chosen quarter of its 8-word runs (its fingerprints, so
// the same run is chosen on both sides), kept sorted in typed arrays with the document each
// comes from (12 bytes each: about 35 MB for 10,000 notes of 1,000 words). A transfer file
// repeats a document when it holds most of that document's fingerprints (of each part of about
// 1,000 words of a longer one); other notes written from the same templates hold some. A document
// also leaves the hashes of its sentences of 10 words or more: sentences copied scattered through
// other text (every other one) leave too few whole 8-word runs, but each copied sentence is found
// whole (see SCATTERED). Hashes are 52 bits, so a chance match is negligible.

import { lowerBound } from '../sorted.ts';

const RUN = 8;
/** A run is a fingerprint when two bits of its hash are zero: a quarter of them. */
const SAMPLE_MASK = 3;
/**
 * The most fingerprints of a document counted together (about 1,000 words): a longer one is
 * split into parts of consecutive runs (kept in text order), each of which a copy must repeat.
 */
const PART_RUNS = 256;
/** The fewest words of a sentence whose hash is kept: shorter ones are headings and stock phrases. */
const SENTENCE_WORDS = 10;
/**
 * When text holds a private document's sentences scattered among other text. A sentence found in
 * two private documents (parts) is template text and counts for neither; a part counts when the
 * text holds `share` and at least `each` of its own sentences, and the text repeats private
 * documents when the parts that count hold `together` of their sentences. Measured on ../shared
 * (2026-11-24; found / own sentences of one part): the other MTSamples reports, against private
 * sets of 5 to 300 of the 378 distinct ones, hold at most 5/33 or 3/10 (30%) of a report the 60%
 * rule does not already refuse, and no part counts, but for one pair of reports from one template
 * (19/38, a pair the 60% rule refuses the other way round); the biomedical and general text hold
 * no sentence of the reports or of NCBI-disease's training abstracts. Every other sentence copied
 * among other text holds at least 17 (44%) of each 1,000-word part, and 40% or more of 95 in 100
 * whole notes and abstracts: five of them copied so are refused (a single short one passes);
 * every third sentence holds 29% or more of a part, enough for most sets of ten documents.
 */
const SCATTERED = { share: 0.35, each: 3, together: 12 };

const WORD = /[\p{L}\p{N}]+/gu;
/** A sentence's end: a full stop, question or exclamation mark followed by a space or the end. */
const SENTENCE_END = /[.!?](?=\s|$)/;

/** The words of a text, lower case (letters and digits; punctuation and layout dropped). */
function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The words of a text (as words() finds them) and the index after each sentence's last word. */
function sentenceWords(text: string): { ws: string[]; ends: number[] } {
  const ws: string[] = [];
  const ends: number[] = [];
  for (const sentence of text.toLowerCase().split(SENTENCE_END)) {
    const found = sentence.match(WORD);
    if (found === null) continue;
    for (const w of found) ws.push(w);
    ends.push(ws.length);
  }
  return { ws, ends };
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
function wholeHash(ws: readonly string[], a: Uint32Array, b: Uint32Array): number | undefined {
  return ws.length < 5 ? undefined : spanHash(a, b, 0, ws.length).hash;
}

/** The hashes of the fingerprint runs of a list of words (hashed by wordHashes). */
function runHashes(ws: readonly string[], a: Uint32Array, b: Uint32Array): number[] {
  const runs: number[] = [];
  for (let i = 0; i + RUN <= ws.length; i++) {
    const { hash, isSampled } = spanHash(a, b, i, i + RUN);
    if (isSampled) runs.push(hash);
  }
  return runs;
}

/** The hashes of the sentences of SENTENCE_WORDS or more of words [from, …) ending at `ends`. */
function sentenceHashes(a: Uint32Array, b: Uint32Array, from: number, ends: readonly number[]): number[] {
  const out: number[] = [];
  let start = from;
  for (const end of ends) {
    if (end - start >= SENTENCE_WORDS) out.push(spanHash(a, b, start, end).hash);
    start = end;
  }
  return out;
}

/** Index of the first entry of the sorted `set` equal to `value`, or -1. */
function firstIndex(set: Float64Array, value: number): number {
  const i = lowerBound(set, value);
  return i < set.length && set[i] === value ? i : -1;
}

/** A private document, or a part of about 1,000 words of a long one, found in other text. */
export interface OverlapPart {
  /** Where it is: 0 for the texts given to privateFingerprints, i for its `recorded[i - 1]`. */
  set: number;
  /** Its position there (from 0), and which of its parts (from 0, of `parts`). */
  document: number;
  part: number;
  parts: number;
}

/** The private documents some text repeats: see PrivateFingerprints.containedIn. */
export interface Overlap {
  /** Those (parts) with the share asked for of their fingerprints in the text. */
  copied: OverlapPart[];
  /** Those whose own sentences the text holds scattered (SCATTERED), most found first; none under it. */
  scattered: (OverlapPart & { found: number; own: number })[];
}

/** Fingerprints of private documents, to look for in other text. */
export interface PrivateFingerprints {
  /** Whether `text` is, as a whole, one of the private documents (case, punctuation and layout aside). */
  isWhole(text: string): boolean;
  /**
   * Which private documents (of at least two fingerprints; a long one counted as parts of
   * PART_RUNS fingerprints) have `share` or more of their fingerprints in `texts`, read as one
   * stream of words (a file's paragraphs, in order), and whose sentences it holds scattered.
   */
  containedIn(texts: Iterable<string>, share: number): Overlap;
}

/**
 * The fingerprints of documents as plain numbers (no text), for a file beside a model trained on
 * them (fingerprint-file.ts): whole-text hashes, then each document's count of fingerprint runs
 * and those runs' hashes, and each one's count of sentence hashes and those (in text order),
 * document after document. A file written before sentences were kept has none (counts of 0).
 */
export interface FingerprintSet {
  wholes: Float64Array;
  counts: Uint32Array;
  runs: Float64Array;
  sentenceCounts: Uint32Array;
  sentences: Float64Array;
}

/** The fingerprints of `texts` (see FingerprintSet). */
export function fingerprintSet(texts: Iterable<string>): FingerprintSet {
  const wholes: number[] = [];
  const counts: number[] = [];
  const runs: number[] = [];
  const sentenceCounts: number[] = [];
  const sentences: number[] = [];
  for (const t of texts) {
    const { ws, ends } = sentenceWords(t);
    const [a, b] = wordHashes(ws);
    const whole = wholeHash(ws, a, b);
    if (whole !== undefined) wholes.push(whole);
    const own = [...new Set(runHashes(ws, a, b))];
    for (const r of own) runs.push(r);
    counts.push(own.length);
    const said = [...new Set(sentenceHashes(a, b, 0, ends))];
    for (const h of said) sentences.push(h);
    sentenceCounts.push(said.length);
  }
  const f64 = (xs: number[]): Float64Array => Float64Array.from(xs);
  return { wholes: f64(wholes), counts: Uint32Array.from(counts), runs: f64(runs), sentenceCounts: Uint32Array.from(sentenceCounts), sentences: f64(sentences) };
}

/** Hashes with the part each comes from, sorted by hash for firstIndex. */
function sortedByHash(hashes: readonly number[], owners: readonly number[]): { set: Float64Array; owner: Uint32Array } {
  const order = Uint32Array.from(hashes.keys()).sort((i, j) => hashes[i]! - hashes[j]!);
  return { set: Float64Array.from(order, (i) => hashes[i]!), owner: Uint32Array.from(order, (i) => owners[i]!) };
}

/** Marks in `seen` the entries of `sorted` equal to `hash` not seen before, counting them per owner in `tally`. */
function mark(sorted: { set: Float64Array; owner: Uint32Array }, seen: Uint8Array, tally: Map<number, number>, hash: number): void {
  const { set, owner } = sorted;
  for (let i = firstIndex(set, hash); i >= 0 && i < set.length && set[i] === hash; i++) {
    if (seen[i] === 1) continue;
    seen[i] = 1;
    tally.set(owner[i]!, (tally.get(owner[i]!) ?? 0) + 1);
  }
}

/** Fingerprints of `texts` and of documents known only by their fingerprints (`recorded`). */
export function privateFingerprints(texts: Iterable<string>, recorded: readonly FingerprintSet[] = []): PrivateFingerprints {
  const wholes: number[] = [];
  const runs: number[] = [];
  const owners: number[] = [];
  const sampled: number[] = [];
  const said: number[] = [];
  const sayers: number[] = [];
  const parts: OverlapPart[] = [];
  // The same document given twice (the app passes the workspace's patient notes and the teacher's
  // recorded fingerprints of the same notes; notes imported in two projects) is kept once: else
  // each of its sentences was in two parts, taken for template text, and not looked for, so
  // scattered copies of the teacher's own notes passed; and "and N more" counted each twice.
  const kept = new Set<string>();
  const keyOf = (xs: Float64Array, from: number, to: number): string => Array.from(xs.subarray(from, to)).sort((x, y) => x - y).join(',');
  [fingerprintSet(texts), ...recorded].forEach((set, s) => {
    for (const w of set.wholes) wholes.push(w); // not push(...): a large set overflows the stack
    let [at, sentenceAt] = [0, 0];
    set.counts.forEach((n, d) => {
      const m = set.sentenceCounts[d]!;
      // A long document (a CoNLL file without document breaks is one) counts as parts of
      // consecutive fingerprints, each needing the share: else half of it passed as new text.
      // Its sentences are split into as many parts, in text order.
      const count = n > 0 || m > 0 ? Math.max(1, Math.ceil(n / PART_RUNS)) : 0;
      for (let p = 0; p < count; p++) {
        const share = (total: number, q: number): number => Math.floor((q * total) / count);
        const key = `${count}:${keyOf(set.runs, at + share(n, p), at + share(n, p + 1))}|${keyOf(set.sentences, sentenceAt + share(m, p), sentenceAt + share(m, p + 1))}`;
        if (kept.has(key)) continue;
        kept.add(key);
        const doc = parts.length;
        for (let i = at + share(n, p); i < at + share(n, p + 1); i++) {
          runs.push(set.runs[i]!);
          owners.push(doc);
        }
        for (let i = sentenceAt + share(m, p); i < sentenceAt + share(m, p + 1); i++) {
          said.push(set.sentences[i]!);
          sayers.push(doc);
        }
        sampled.push(share(n, p + 1) - share(n, p));
        parts.push({ set: s, document: d, part: p, parts: count });
      }
      at += n;
      sentenceAt += m;
    });
  });
  const wholeSet = Float64Array.from(wholes).sort();
  const runSet = sortedByHash(runs, owners);
  // A sentence found in two parts is template text (shared by reports of unrelated patients): it
  // is nobody's own and is not looked for.
  const allSaid = sortedByHash(said, sayers);
  const [ownSaid, ownSayers] = [[] as number[], [] as number[]];
  const ownSentences = new Uint32Array(parts.length);
  for (let i = 0; i < allSaid.set.length; i++) {
    const h = allSaid.set[i]!;
    if (allSaid.set[i - 1] === h || allSaid.set[i + 1] === h) continue;
    ownSaid.push(h);
    ownSayers.push(allSaid.owner[i]!);
    ownSentences[allSaid.owner[i]!]!++;
  }
  const sentenceSet = { set: Float64Array.from(ownSaid), owner: Uint32Array.from(ownSayers) };
  return {
    isWhole(text) {
      const ws = words(text);
      const h = wholeHash(ws, ...wordHashes(ws));
      return h !== undefined && firstIndex(wholeSet, h) >= 0;
    },
    containedIn(stream, share) {
      const [runsSeen, sentencesSeen] = [new Uint8Array(runSet.set.length), new Uint8Array(sentenceSet.set.length)];
      const [runsFound, sentencesFound] = [new Map<number, number>(), new Map<number, number>()];
      let carry: string[] = [];
      for (const text of stream) {
        const t = sentenceWords(text);
        const ws = [...carry, ...t.ws];
        const [a, b] = wordHashes(ws);
        for (const r of runHashes(ws, a, b)) mark(runSet, runsSeen, runsFound, r);
        // A paragraph's end ends a sentence (the words carried over belong to the one before).
        const ends = t.ends.map((e) => e + carry.length);
        for (const h of sentenceHashes(a, b, carry.length, ends)) mark(sentenceSet, sentencesSeen, sentencesFound, h);
        carry = ws.slice(-(RUN - 1));
      }
      const copied = [...runsFound].filter(([doc, hits]) => sampled[doc]! >= 2 && hits >= share * sampled[doc]!).map(([doc]) => parts[doc]!);
      const counting = [...sentencesFound].filter(([doc, n]) => n >= SCATTERED.each && n >= SCATTERED.share * ownSentences[doc]!).sort((x, y) => y[1] - x[1]);
      const together = counting.reduce((sum, [, n]) => sum + n, 0);
      const scattered = together < SCATTERED.together ? [] : counting.map(([doc, n]) => ({ ...parts[doc]!, found: n, own: ownSentences[doc]! }));
      return { copied, scattered };
    },
  };
}
