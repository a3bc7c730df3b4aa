// NER data: documents (character offsets) → sentences → basic-tokenizer words → WordPiece pieces,
// IOB2 word labels from entity spans on the FIRST piece of each word (other pieces and
// [CLS]/[SEP] get -100), sliding windows for sentences longer than the model, and the decoder
// that maps the owning window's predictions back to exact character spans per sentence.

import type { Document, FormatIssue } from '../formats/types.ts';
import { extractSpans, repairBio, type Span } from '../metrics/tags.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { makeWindows, type TokenWindow } from '../text/windows.ts';
import { argmaxRow, IGNORE, softmaxRow, type Encoded } from './batching.ts';
import { rangeAt, sentenceRanges } from '../formats/sentence-ranges.ts';

/** One sentence: its words (document character ranges) and WordPiece pieces. */
export interface NerSentence {
  doc: number;
  start: number;
  end: number;
  /**
   * [start, end) of each word in the document text, flat: word k is [words[2k], words[2k + 1]).
   * Typed arrays: a long note has millions of words and pieces (see sentenceWords, wordSpan).
   */
  words: Int32Array;
  pieceIds: Int32Array;
  /** Sentence-local word index of each piece. */
  pieceWord: Int32Array;
  /** Gold label id per word (when the data has entities and a label index was given). */
  wordLabels?: number[];
  /** Gold entities starting in this sentence (covering span of discontinuous ones). */
  gold: Span[];
}

/** A window over one sentence's pieces; `examples[k]` is the model input of `windows[k]`. */
export interface NerData {
  sentences: NerSentence[];
  windows: { sentence: number; window: TokenWindow }[];
  examples: Encoded[];
  issues: FormatIssue[];
}

/** A predicted span with its mean word probability. */
export interface ScoredSpan extends Span {
  score: number;
}

/** Options for `buildNerData`. */
export interface NerDataOptions {
  /** Label name → id; when given, words get gold labels (every entity type must be known). */
  labelIndex?: ReadonlyMap<string, number>;
  maxLength: number;
  /** Overlap between windows of a long sentence, in pieces. */
  stride: number;
  /** Where issues are attributed (file name). */
  source: string;
}

/** Entity types in the documents, sorted. */
export function entityTypes(docs: readonly Document[]): string[] {
  return [...new Set(docs.flatMap((d) => d.entities.map((e) => e.type)))].sort();
}

/** IOB2 label list: 'O', then B-/I- of each type. */
export function iob2Labels(types: readonly string[]): string[] {
  return ['O', ...types.flatMap((t) => [`B-${t}`, `I-${t}`])];
}

/** Entity types named by IOB2 labels (throws on labels that are not IOB2). */
export function typesOfLabels(labels: readonly string[]): string[] {
  const types = new Set<string>();
  for (const l of labels) {
    if (l === 'O') continue;
    const m = /^[BI]-(.+)$/.exec(l);
    if (!m?.[1])
      throw new Error(
        `label "${l}" is not an IOB2 tag (O, B-TYPE, I-TYPE); this engine trains IOB2 NER models`,
      );
    types.add(m[1]);
  }
  return [...types].sort();
}

/** A growable Int32Array (doubling), for a document's pieces and words. */
class Int32Buffer {
  private buf = new Int32Array(1024);
  length = 0;

  append(values: readonly number[]): void {
    if (this.length + values.length > this.buf.length) {
      const grown = new Int32Array(Math.max(2 * this.buf.length, this.length + values.length));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    this.buf.set(values, this.length);
    this.length += values.length;
  }

  /** The values, in an array of their own size. */
  done(): Int32Array {
    return this.buf.slice(0, this.length);
  }
}

/** Number of words of a sentence. */
export function sentenceWords(s: Pick<NerSentence, 'words'>): number {
  return s.words.length >> 1;
}

/** [start, end) of word `k` of a sentence in the document text. */
export function wordSpan(s: Pick<NerSentence, 'words'>, k: number): [number, number] {
  return [s.words[2 * k] ?? 0, s.words[2 * k + 1] ?? 0];
}

function isFirstPiece(s: NerSentence, p: number): boolean {
  return p === 0 || s.pieceWord[p - 1] !== s.pieceWord[p];
}

/** Splits documents into sentences of words and pieces, labelled when `labelIndex` is given. */
export function buildNerData(
  docs: readonly Document[],
  tok: WordPieceTokenizer,
  opts: NerDataOptions,
): NerData {
  const { sentences, issues } = nerSentences(docs, tok, opts);
  const { windows, examples } = nerExamples(sentences, tok, opts.maxLength, opts.stride);
  return { sentences, windows, examples, issues };
}

/** The sentences of `buildNerData`, without model inputs (prediction builds them batch by batch). */
export function nerSentences(
  docs: readonly Document[],
  tok: WordPieceTokenizer,
  opts: Omit<NerDataOptions, 'maxLength' | 'stride'>,
): Pick<NerData, 'sentences' | 'issues'> {
  const sentences: NerSentence[] = [];
  const counts = {
    discontinuous: 0,
    overlapping: 0,
    misaligned: 0,
    crossing: 0,
    noToken: 0,
    empty: 0,
  };
  docs.forEach((doc, d) => {
    if (doc.text.trim() === '') {
      counts.empty++;
      return;
    }
    const first = sentences.length;
    const ranges = sentenceRanges(doc);
    // Tokens are taken as the tokenizer gives them, not kept for the whole document: each goes
    // to the sentence it starts in (tokens before a sentence start, or after the last, to none).
    let r = 0;
    let lastWord = -1;
    // The sentence being read: its word spans (flat), piece ids and piece words; closed ones are
    // appended to the document's arrays, which the sentences view (one buffer each, not three
    // per sentence: a long note has hundreds of thousands of sentences).
    const words: number[] = [];
    const ids: number[] = [];
    const pieceWord: number[] = [];
    const all = { words: new Int32Buffer(), ids: new Int32Buffer(), pieceWord: new Int32Buffer() };
    const closed: { range: { start: number; end: number }; word: number; piece: number }[] = [];
    const close = (): void => {
      const range = ranges[r];
      if (ids.length > 0 && range !== undefined) {
        closed.push({ range, word: all.words.length, piece: all.ids.length });
        all.words.append(words);
        all.ids.append(ids);
        all.pieceWord.append(pieceWord);
      }
      words.length = ids.length = pieceWord.length = 0;
      lastWord = -1;
    };
    tok.forEachToken(doc.text, (id, a, b, w) => {
      while (r < ranges.length && a >= (ranges[r] as { end: number }).end) {
        close();
        r++;
      }
      const range = ranges[r];
      if (range === undefined || a < range.start) return;
      if (w !== lastWord) words.push(a, b);
      else words[words.length - 1] = b;
      lastWord = w;
      ids.push(id);
      pieceWord.push((words.length >> 1) - 1);
    });
    close();
    const docWords = all.words.done();
    const docIds = all.ids.done();
    const docPieceWord = all.pieceWord.done();
    closed.forEach(({ range, word, piece }, k) => {
      const next = closed[k + 1];
      const pieceEnd = next?.piece ?? docIds.length;
      sentences.push({
        doc: d,
        start: range.start,
        end: range.end,
        words: docWords.subarray(word, next?.word ?? docWords.length),
        pieceIds: docIds.subarray(piece, pieceEnd),
        pieceWord: docPieceWord.subarray(piece, pieceEnd),
        gold: [],
      });
    });
    labelDocument(doc, sentences.slice(first), opts.labelIndex, counts);
  });
  const issues: FormatIssue[] = [];
  const warn = (n: number, what: string): void => {
    if (n > 0) issues.push({ severity: 'warning', file: opts.source, message: `${n} ${what}` });
  };
  warn(counts.empty, 'empty document(s) skipped');
  warn(
    counts.discontinuous,
    'discontinuous entities are not trainable as IOB2 and were left out of the labels',
  );
  warn(
    counts.overlapping,
    'overlapping/nested entities were left out of the labels (the first, longest one is kept)',
  );
  warn(counts.misaligned, 'entity boundaries fall inside a word; the whole word was labelled');
  warn(counts.crossing, 'entities cross a sentence boundary; labelled as one entity per sentence');
  warn(
    counts.noToken,
    'entities cover no token (only spaces or removed characters) and were ignored',
  );
  return { sentences, issues };
}

/** A word of a document with its sentence. */
interface DocWord {
  s: NerSentence;
  w: number;
  start: number;
  end: number;
}

function labelDocument(
  doc: Document,
  sents: NerSentence[],
  labelIndex: ReadonlyMap<string, number> | undefined,
  counts: Record<'discontinuous' | 'overlapping' | 'misaligned' | 'crossing' | 'noToken', number>,
): void {
  // The document's words, for labelling only (predicting a long note needs no copy of them).
  const words: DocWord[] = [];
  if (labelIndex)
    for (const s of sents) {
      for (let w = 0; w < sentenceWords(s); w++) words.push({ s, w, start: s.words[2 * w] ?? 0, end: s.words[2 * w + 1] ?? 0 });
      s.wordLabels = new Array<number>(sentenceWords(s)).fill(labelIndex.get('O') ?? 0);
    }
  const taken = new Set<string>();
  const ents = [...doc.entities].filter((e) => e.spans.length > 0);
  const bounds = (e: (typeof ents)[number]): [number, number] => [
    e.spans[0]?.start ?? 0,
    e.spans[e.spans.length - 1]?.end ?? 0,
  ];
  ents.sort((x, y) => bounds(x)[0] - bounds(y)[0] || bounds(y)[1] - bounds(x)[1]);
  for (const e of ents) {
    const [start, end] = bounds(e);
    const at = rangeAt(sents, start);
    const sent = at >= 0 ? sents[at] : sents.find((s) => s.start >= start && s.start < end);
    sent?.gold.push({ type: e.type, start, end });
    if (!labelIndex) continue;
    if (e.spans.length > 1) {
      counts.discontinuous++;
      continue;
    }
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((words[mid]?.end ?? 0) <= start) lo = mid + 1;
      else hi = mid;
    }
    const covered: DocWord[] = [];
    for (let k = lo; k < words.length && (words[k]?.start ?? 0) < end; k++)
      covered.push(words[k] as DocWord);
    if (covered.length === 0) {
      counts.noToken++;
      continue;
    }
    if (covered.some((c) => taken.has(`${c.s.start}:${c.w}`))) {
      counts.overlapping++;
      continue;
    }
    const b = labelIndex.get(`B-${e.type}`);
    const i = labelIndex.get(`I-${e.type}`);
    if (b === undefined || i === undefined)
      throw new Error(
        `entity type "${e.type}" (document ${doc.id}) is not among the model's labels`,
      );
    if (covered[0]?.start !== start || covered[covered.length - 1]?.end !== end)
      counts.misaligned++;
    if (covered.some((c) => c.s !== covered[0]?.s)) counts.crossing++;
    covered.forEach((c, k) => {
      taken.add(`${c.s.start}:${c.w}`);
      const labels = c.s.wordLabels as number[];
      labels[c.w] = k === 0 || covered[k - 1]?.s !== c.s ? b : i;
    });
  }
}

/**
 * Model inputs: one per sentence, or sliding windows of `maxLength - 2` pieces for long ones;
 * labelled windows without a labelled piece are left out.
 */
export function nerExamples(
  sentences: readonly NerSentence[],
  tok: WordPieceTokenizer,
  maxLength: number,
  stride: number,
): { windows: NerData['windows']; examples: Encoded[] } {
  const windows: NerData['windows'] = [];
  const examples: Encoded[] = [];
  if (maxLength - 2 < 1) throw new Error(`max length ${maxLength} leaves no room for tokens`);
  sentences.forEach((s, si) => {
    for (const w of sentenceWindows(s, maxLength, stride)) {
      const ids = windowIds(s, w, tok);
      const labels = [IGNORE];
      for (let p = w.contextStart; p < w.contextEnd; p++) {
        labels.push(
          s.wordLabels && isFirstPiece(s, p)
            ? (s.wordLabels[s.pieceWord[p] ?? 0] ?? IGNORE)
            : IGNORE,
        );
      }
      labels.push(IGNORE);
      // A window inside one long word (a sequence, a URL) has no first piece: with labels it
      // teaches nothing, and a batch of only such windows made the loss 0/0 (NaN). Unlabelled
      // windows own only continuation pieces, which decoding never reads.
      if (s.wordLabels && labels.every((l) => l === IGNORE)) continue;
      windows.push({ sentence: si, window: w });
      examples.push({ ids, labels });
    }
  });
  return { windows, examples };
}

/** The windows of a sentence: the whole of it, or sliding windows of `maxLength - 2` pieces. */
export function sentenceWindows(s: Pick<NerSentence, 'pieceIds'>, maxLength: number, stride: number): TokenWindow[] {
  const maxTokens = maxLength - 2;
  if (maxTokens < 1) throw new Error(`max length ${maxLength} leaves no room for tokens`);
  const n = s.pieceIds.length;
  return n <= maxTokens
    ? [{ start: 0, end: n, contextStart: 0, contextEnd: n }]
    : makeWindows(n, maxTokens, Math.min(stride, maxTokens - 1));
}

/** The model input of a window: [CLS], its context pieces, [SEP]. */
export function windowIds(s: Pick<NerSentence, 'pieceIds'>, w: TokenWindow, tok: WordPieceTokenizer): number[] {
  return [tok.clsId, ...s.pieceIds.subarray(w.contextStart, w.contextEnd), tok.sepId];
}

/** Predicted character spans per sentence from per-window logits ([len, L] each). */
export function decodeNer(
  data: Pick<NerData, 'sentences' | 'windows'>,
  logits: readonly Float32Array[],
  labels: readonly string[],
): ScoredSpan[][] {
  const decoder = nerDecoder(data, labels);
  logits.forEach((out, k) => decoder.take(k, out));
  return decoder.spans();
}

/** No prediction yet: the word keeps 'O' with probability 1. */
const UNSET = 0xffff;

/**
 * `decodeNer` fed one window's logits at a time, in any order (`take(k, logits of window k)`):
 * each word keeps only its label index and probability, so no window's logits need be kept.
 */
export function nerDecoder(
  data: Pick<NerData, 'sentences' | 'windows'>,
  labels: readonly string[],
): { take: (k: number, out: Float32Array) => void; spans: () => ScoredSpan[][] } {
  const L = labels.length;
  if (L >= UNSET) throw new Error(`${L} labels are more than an NER model can have here (${UNSET - 1})`);
  // One label index and probability per word of all the sentences (sentence si from base[si]).
  const base = new Int32Array(data.sentences.length + 1);
  data.sentences.forEach((s, si) => (base[si + 1] = (base[si] ?? 0) + sentenceWords(s)));
  const words = base[data.sentences.length] ?? 0;
  const tags = new Uint16Array(words).fill(UNSET);
  const probs = new Float64Array(words).fill(1);
  const take = (k: number, out: Float32Array): void => {
    const { sentence, window: w } = data.windows[k] as NerData['windows'][number];
    const s = data.sentences[sentence] as NerSentence;
    const at = base[sentence] ?? 0;
    // Owned range only: each piece takes its prediction from exactly one window.
    for (let p = w.start; p < w.end; p++) {
      if (!isFirstPiece(s, p)) continue;
      const row = 1 + p - w.contextStart;
      const best = argmaxRow(out, row, L);
      const word = at + (s.pieceWord[p] ?? 0);
      tags[word] = best;
      probs[word] = softmaxRow(out, row, L)[best] ?? 0;
    }
  };
  const spans = (): ScoredSpan[][] =>
    data.sentences.map((s, si) => {
      const at = base[si] ?? 0;
      const wordTags = Array.from(tags.subarray(at, base[si + 1]), (t) => (t === UNSET ? 'O' : (labels[t] ?? 'O')));
      return extractSpans(repairBio(wordTags), 'IOB2').map((sp) => {
        let sum = 0;
        for (let w = sp.start; w < sp.end; w++) sum += probs[at + w] ?? 0;
        return {
          type: sp.type,
          start: s.words[2 * sp.start] ?? 0,
          end: s.words[2 * (sp.end - 1) + 1] ?? 0,
          score: sum / (sp.end - sp.start),
        };
      });
    });
  return { take, spans };
}

/** Number of words in the sentences (for throughput reports). */
export function wordCount(sentences: readonly NerSentence[]): number {
  return sentences.reduce((n, s) => n + sentenceWords(s), 0);
}
