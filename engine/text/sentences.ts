// Rule-based sentence splitting for biomedical abstracts and clinical notes, with UTF-16 offsets.
// Splits on . ! ? (plus closing quotes/brackets) before whitespace and an uppercase letter, digit or
// opening quote, on blank lines, on line breaks next to section headers or before list items, and
// on MTSamples' flattened line breaks ("...effusion.,2.  Trace ..." / "PLAN:,1.").
// Deliberately conservative: abbreviations, initials, list numbers and decimals never split, nor
// does a period inside brackets that close later on its line ("(P = 0. 03)"), and a plain wrapped
// line break does not split. No ML model, no tokenization.

/** A sentence as a trimmed [start, end) range of the input text. */
export interface SentenceSpan {
  start: number;
  end: number;
}

/** Abbreviations compared case-sensitively (titles, months, "No."). */
const ABBREV_CASED = new Set([
  'Dr',
  'Mr',
  'Mrs',
  'Ms',
  'Prof',
  'St',
  'Sr',
  'Jr',
  'No',
  'Nos',
  'Fig',
  'Figs',
  'Ref',
  'Refs',
  'Eq',
  'Eqs',
  'Vol',
  'Ch',
  'Sect',
  'Dept',
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Sept',
  'Oct',
  'Nov',
  'Dec',
]);

/** Abbreviations compared after lowercasing (Latin, clinical dosing, units written with a period). */
const ABBREV_LOWER = new Set([
  'e.g',
  'i.e',
  'vs',
  'approx',
  'fig',
  'figs',
  'no',
  'nos',
  'cf',
  'viz',
  'resp',
  'incl',
  'ca',
  'mg',
  'mcg',
  'dr',
  'mr',
  'mrs',
  'prof',
  'ref',
  'eq',
  'vol',
  'pp',
  'q.i.d',
  'b.i.d',
  't.i.d',
  'p.r.n',
  'p.o',
  'q.d',
  'q.h',
]);

/** Dosing abbreviations/units that can end a list item: "... 10 mg b.i.d. 2. Metformin ..." splits. */
const ABBREV_ITEM_END = new Set([
  'q.i.d',
  'b.i.d',
  't.i.d',
  'p.r.n',
  'p.o',
  'q.d',
  'q.h',
  'mg',
  'mcg',
]);

/** Words naming a lettered item: "vitamin D." or "type A." may end a sentence. */
const LETTER_DESIGNATORS = new Set([
  'vitamin',
  'hepatitis',
  'type',
  'group',
  'class',
  'phase',
  'grade',
  'stage',
  'factor',
  'chain',
  'protein',
  'complex',
  'lane',
  'panel',
  'figure',
  'table',
  'appendix',
  'section',
  'schedule',
  'influenza',
  'zone',
  'site',
]);

const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '}', '»']);
const OPEN_QUOTES = new Set(['"', "'", '“', '‘', '«']);
const RE_WS = /\s/;
const RE_START = /[\p{Lu}\p{Lt}\p{N}]/u;
const RE_WORDCH = /[\p{L}\p{N}.]/u;
const RE_DOTTED = /^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u;
const RE_NEXT_ITEM = /^\d{1,2}[.)]\s/;
const RE_LIST_ITEM = /^[ \t]*(?:[-*•·–]|\d{1,2}[.)]|[a-z][.)])[ \t]/u;

function isLineBreak(c: string): boolean {
  return c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
}

/** Trimmed line containing the break that starts at `i` (side = -1: the line before, 1: after). */
function lineAround(text: string, i: number, side: -1 | 1): string {
  if (side < 0) {
    let a = i;
    while (a > 0 && !isLineBreak(text.charAt(a - 1))) a--;
    return text.slice(a, i);
  }
  let a = i;
  while (a < text.length && isLineBreak(text.charAt(a)) && text.charAt(a) !== '\n') a++;
  if (text.charAt(a) === '\n') a++;
  let b = a;
  while (b < text.length && !isLineBreak(text.charAt(b))) b++;
  return text.slice(a, b);
}

/** Section header line: "HISTORY OF PRESENT ILLNESS" or anything ending with ':'. */
function isHeaderLine(line: string): boolean {
  const t = line.trim();
  if (t.endsWith(':')) return true;
  if (t.length < 2 || t.length > 80 || /\p{Ll}/u.test(t)) return false;
  return (t.match(/\p{Lu}/gu)?.length ?? 0) >= 2;
}

/** Should the line break at `i` end the current sentence? */
function breakSplits(text: string, i: number): boolean {
  if (text.charAt(i) === '\u2029') return true;
  const prev = lineAround(text, i, -1);
  const next = lineAround(text, i, 1);
  if (prev.trim() === '' || next.trim() === '') return true; // blank line
  return isHeaderLine(prev) || isHeaderLine(next) || RE_LIST_ITEM.test(next);
}

/** The word (letters, digits, inner dots) that ends right before index `i`, and where it starts. */
function wordBefore(text: string, i: number): { word: string; start: number } {
  let a = i;
  while (a > 0 && RE_WORDCH.test(text.charAt(a - 1))) a--;
  while (a < i && text.charAt(a) === '.') a++;
  return { word: text.slice(a, i), start: a };
}

/** Does a period at `dot` (ending the word before it) belong to an abbreviation/initial/list number? */
function periodIsNotFinal(text: string, dot: number, segStart: number, next: number): boolean {
  const { word, start } = wordBefore(text, dot);
  if (word === '') return false;
  const lower = word.toLowerCase();
  if (ABBREV_CASED.has(word) || ABBREV_LOWER.has(lower) || RE_DOTTED.test(word)) {
    return !(ABBREV_ITEM_END.has(lower) && RE_NEXT_ITEM.test(text.slice(next, next + 8)));
  }
  const prev = wordBefore(text, skipBack(text, start, ' \t')).word.toLowerCase();
  if (lower === 'al' && prev === 'et') return true;
  if (/^\p{Lu}$/u.test(word)) return !LETTER_DESIGNATORS.has(prev); // initial: "J. Smith", "E. coli"
  if (/^\d{1,2}$/.test(word)) {
    // List number: first thing of the sentence/line, or right after a header colon ("PLAN:,1.").
    const b = skipBack(text, start, ' \t,');
    return b <= segStart || b === 0 || /[\n\r:.;]/.test(text.charAt(b - 1));
  }
  return false;
}

function skipBack(text: string, i: number, chars: string): number {
  let b = i;
  while (b > 0 && chars.includes(text.charAt(b - 1))) b--;
  return b;
}

/** Can a new sentence start at `k` (after whitespace)? */
function startsSentence(text: string, k: number): boolean {
  const c = text.charAt(k);
  if (RE_START.test(c) || OPEN_QUOTES.has(c)) return true;
  if (c === '(' || c === '[') return RE_START.test(text.charAt(k + 1));
  return false;
}

/**
 * MTSamples-style flattened line break: a comma right after a sentence-final period or a header
 * colon, then a capital or digit ("...effusion.,7.  PA pressure", "SUBJECTIVE:,  This ...").
 */
function flattenedBreak(text: string, comma: number, segStart: number): boolean {
  const p = skipBack(text, comma, ' \t');
  const prev = text.charAt(p - 1);
  if (prev !== '.' && prev !== ':') return false;
  let k = comma + 1;
  while (k < text.length && RE_WS.test(text.charAt(k))) k++;
  if (k >= text.length || !startsSentence(text, k)) return false;
  return prev === ':' || !periodIsNotFinal(text, skipBack(text, p, '.'), segStart, k);
}

/** How far ahead (characters, same line) a bracket left open before a period may close. */
const BRACKET_REACH = 200;

/**
 * Does the bracket nesting `depth` open at `k` close again within BRACKET_REACH characters of
 * the same line? Then a period before `k` is inside the brackets: "(P = 0. 03)", "(EC 1. 1. 1. 49)".
 */
function closesAhead(text: string, k: number, depth: number): boolean {
  let d = depth;
  const stop = Math.min(text.length, k + BRACKET_REACH);
  for (let i = k; i < stop && d > 0; i++) {
    const c = text.charAt(i);
    if (isLineBreak(c)) return false;
    if (c === '(' || c === '[') d++;
    else if (c === ')' || c === ']') d--;
  }
  return d === 0;
}

/** Splits text into trimmed sentence spans, in order, covering every non-whitespace character. */
export function splitSentences(text: string): SentenceSpan[] {
  const cuts: number[] = [];
  let segStart = 0;
  let depth = 0; // round/square brackets open since the last cut
  const cut = (at: number): void => {
    cuts.push(at);
    segStart = at;
    depth = 0;
  };
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charAt(i);
    if (isLineBreak(c)) {
      if (breakSplits(text, i)) cut(i);
      if (c === '\r' && text.charAt(i + 1) === '\n') i++;
      continue;
    }
    if (c === ',') {
      if (flattenedBreak(text, i, segStart) && !(depth > 0 && closesAhead(text, i + 1, depth)))
        cut(i + 1);
      continue;
    }
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    if (c !== '.' && c !== '!' && c !== '?') continue;
    const runStart = i;
    let j = i;
    let onlyDots = true;
    while (j < n && '.!?'.includes(text.charAt(j))) {
      if (text.charAt(j) !== '.') onlyDots = false;
      j++;
    }
    const runEnd = j;
    while (j < n && CLOSERS.has(text.charAt(j))) j++;
    i = runEnd - 1;
    if (j >= n || !RE_WS.test(text.charAt(j))) continue;
    let k = j;
    while (k < n && RE_WS.test(text.charAt(k))) k++;
    if (k >= n || !startsSentence(text, k)) continue;
    if (onlyDots && periodIsNotFinal(text, runStart, segStart, k)) continue;
    let open = depth;
    for (let q = runEnd; q < j; q++) if (')]'.includes(text.charAt(q)) && open > 0) open--;
    if (open > 0 && closesAhead(text, k, open)) continue;
    cut(j);
  }
  cuts.push(n);
  const out: SentenceSpan[] = [];
  let a = 0;
  for (const b of cuts) {
    let s = a;
    let e = b;
    while (s < e && RE_WS.test(text.charAt(s))) s++;
    while (e > s && RE_WS.test(text.charAt(e - 1))) e--;
    if (e > s) out.push({ start: s, end: e });
    a = b;
  }
  return out;
}
