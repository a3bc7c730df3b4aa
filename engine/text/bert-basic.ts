// BERT BasicTokenizer (HF transformers 4.36 slow `BasicTokenizer`) that also tracks source offsets:
// clean text, CJK spacing, NFC, whitespace split, lowercase, accent stripping, punctuation split.
// Every output code point keeps the [start, end) UTF-16 range of the original character(s) it came
// from; when normalisation merges or expands characters the pieces share the whole source range.
// Does not do special-token splitting, WordPiece or id lookup (see wordpiece.ts).

/** Normalisation switches, same meaning as HF `BasicTokenizer` arguments. */
export interface BasicOptions {
  doLowerCase: boolean;
  /** null: follow `doLowerCase` (strip when lowercasing); false: keep accents; true: always strip. */
  stripAccents: boolean | null;
  tokenizeChineseChars: boolean;
}

/**
 * A basic (whitespace/punctuation) token: normalised text plus its source ranges. Plain ASCII
 * tokens are stored compactly (`linear` >= 0: code point k came from [linear + k, linear + k + 1));
 * others carry per-code-point arrays. Read them through `tokenLength`/`tokenSlice`/`sourceRange`.
 */
export interface BasicToken {
  text: string;
  linear: number;
  /** UTF-16 index in `text` where each code point starts, plus `text.length` (null when linear). */
  bounds: number[] | null;
  /** Source range [starts[k], ends[k]) of the k-th code point of `text` (null when linear). */
  starts: number[] | null;
  ends: number[] | null;
  /** True when the token matched `neverSplit` and was kept verbatim. */
  neverSplit: boolean;
}

/** Number of code points in a basic token. */
export function tokenLength(t: BasicToken): number {
  return t.starts === null ? t.text.length : t.starts.length;
}

/** Text of code points [a, b) of a basic token. */
export function tokenSlice(t: BasicToken, a: number, b: number): string {
  return t.bounds === null ? t.text.slice(a, b) : t.text.slice(t.bounds[a] ?? 0, t.bounds[b] ?? 0);
}

/** Source [start, end) of code points [a, b) (b > a) of a basic token. */
export function sourceRange(t: BasicToken, a: number, b: number): [number, number] {
  if (t.starts === null || t.ends === null) return [t.linear + a, t.linear + b];
  return [t.starts[a] ?? 0, t.ends[b - 1] ?? 0];
}

/** Code points with their source ranges (struct of arrays). */
interface Units {
  cps: string[];
  starts: number[];
  ends: number[];
  ascii: boolean;
}

const F_REMOVE = 1; // NUL, U+FFFD, control/format (category C* except \t \n \r)
const F_SPACE = 2; // BERT whitespace (\t \n \r space Zs) plus U+2028/U+2029 (Python str.split)
const F_PUNCT = 4; // BERT `_is_punctuation`
const F_CJK = 8; // BERT `_is_chinese_char`

const RE_C = /^\p{C}$/u;
const RE_ZS = /^\p{Zs}$/u;
const RE_P = /^\p{P}$/u;
const RE_M = /^\p{M}$/u;
const RE_MN_ALL = /\p{Mn}/gu;

function isChineseCp(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function classifySlow(cp: number): number {
  const ch = String.fromCodePoint(cp);
  let f = 0;
  if (cp === 0 || cp === 0xfffd || (cp !== 9 && cp !== 10 && cp !== 13 && RE_C.test(ch)))
    f |= F_REMOVE;
  if (
    cp === 32 ||
    cp === 9 ||
    cp === 10 ||
    cp === 13 ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    RE_ZS.test(ch)
  ) {
    f |= F_SPACE;
  }
  const ascii =
    (cp >= 33 && cp <= 47) ||
    (cp >= 58 && cp <= 64) ||
    (cp >= 91 && cp <= 96) ||
    (cp >= 123 && cp <= 126);
  if (ascii || RE_P.test(ch)) f |= F_PUNCT;
  if (isChineseCp(cp)) f |= F_CJK;
  return f;
}

let bmpTable: Uint8Array | undefined;
const astralCache = new Map<number, number>();

/** Flags for one code point (BMP from a lazily built table). */
function classify(cp: number): number {
  if (cp < 0x10000) {
    if (bmpTable === undefined) {
      bmpTable = new Uint8Array(0x10000);
      for (let c = 0; c < 0x10000; c++) bmpTable[c] = classifySlow(c);
    }
    return bmpTable[cp] ?? 0;
  }
  let f = astralCache.get(cp);
  if (f === undefined) {
    f = classifySlow(cp);
    astralCache.set(cp, f);
  }
  return f;
}

/** BERT `_is_punctuation` (ASCII symbol ranges plus Unicode P*). */
export function isBertPunctuation(ch: string): boolean {
  return (classify(ch.codePointAt(0) ?? 0) & F_PUNCT) !== 0;
}

/** BERT `_is_whitespace` (plus U+2028/U+2029), and `_is_chinese_char` (a CJK ideograph). */
export const isBertSpace = (ch: string): boolean => (classify(ch.codePointAt(0) ?? 0) & F_SPACE) !== 0;
export const isChineseChar = (ch: string): boolean => (classify(ch.codePointAt(0) ?? 0) & F_CJK) !== 0;

/** BERT `_is_control` plus NUL/U+FFFD: characters `_clean_text` deletes. */
export function isBertRemoved(ch: string): boolean {
  return (classify(ch.codePointAt(0) ?? 0) & F_REMOVE) !== 0;
}

function emptyUnits(): Units {
  return { cps: [], starts: [], ends: [], ascii: true };
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** Every output code point gets the union range of all input units (used when no finer map is sound). */
function wholeRange(u: Units, out: string): Units {
  const r = emptyUnits();
  const a = u.starts[0] ?? 0;
  const b = u.ends[u.ends.length - 1] ?? a;
  for (const c of out) {
    r.cps.push(c);
    r.starts.push(a);
    r.ends.push(b);
  }
  r.ascii = isAscii(out);
  return r;
}

/**
 * Applies a per-code-point transform whose whole-string result must equal `expected`; falls back to
 * a 1:1 map when only the count agrees (final sigma), else to whole-range mapping.
 */
function mapUnits(u: Units, perCp: (c: string) => string, expected: string): Units {
  const outs = u.cps.map(perCp);
  if (outs.join('') === expected) {
    const r = emptyUnits();
    outs.forEach((o, k) => {
      // A code point mapped to nothing (a stripped combining mark) stays with the character
      // before it, so a word's range still ends after its last accent.
      const last = r.ends.length - 1;
      if (o === '' && last >= 0) r.ends[last] = Math.max(r.ends[last] ?? 0, u.ends[k] ?? 0);
      for (const c of o) {
        r.cps.push(c);
        r.starts.push(u.starts[k] ?? 0);
        r.ends.push(u.ends[k] ?? 0);
      }
    });
    r.ascii = isAscii(expected);
    return r;
  }
  const exp = [...expected];
  if (exp.length === u.cps.length && outs.every((o) => [...o].length === 1)) {
    return { cps: exp, starts: u.starts.slice(), ends: u.ends.slice(), ascii: isAscii(expected) };
  }
  return wholeRange(u, expected);
}

/** True when NFC can never merge this code point into the preceding one. */
function isStableStarter(c: string): boolean {
  const cp = c.codePointAt(0) ?? 0;
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff)) return false; // Hangul V/T jamo
  return !RE_M.test(c);
}

/** NFC with offsets: clusters (starter + marks) that change share the cluster's source range. */
function nfcUnits(u: Units): Units {
  const w = u.cps.join('');
  const n = w.normalize('NFC');
  if (n === w) return u;
  const r = emptyUnits();
  const len = u.cps.length;
  for (let k = 0; k < len;) {
    let e = k + 1;
    while (e < len && !isStableStarter(u.cps[e] ?? '')) e++;
    const seg = u.cps.slice(k, e).join('');
    const ns = seg.normalize('NFC');
    if (ns === seg) {
      for (let j = k; j < e; j++) {
        r.cps.push(u.cps[j] ?? '');
        r.starts.push(u.starts[j] ?? 0);
        r.ends.push(u.ends[j] ?? 0);
      }
    } else {
      // A starter NFC leaves alone (marks only reordered, as after "." or ")") keeps its own
      // range, so the punctuation token and the word after it do not overlap.
      const keep = ns.codePointAt(0) === seg.codePointAt(0) ? 1 : 0;
      let n = 0;
      for (const c of ns) {
        const own = n++ < keep;
        r.cps.push(c);
        r.starts.push(own ? (u.starts[k] ?? 0) : (u.starts[k + keep] ?? 0));
        r.ends.push(own ? (u.ends[k] ?? 0) : (u.ends[e - 1] ?? 0));
      }
    }
    k = e;
  }
  if (r.cps.join('') !== n) return wholeRange(u, n);
  r.ascii = isAscii(n);
  return r;
}

function lowerUnits(u: Units): Units {
  const w = u.cps.join('');
  const lw = w.toLowerCase();
  if (lw === w) return u;
  return mapUnits(u, (c) => c.toLowerCase(), lw);
}

function stripMn(s: string): string {
  return s.normalize('NFD').replace(RE_MN_ALL, '');
}

function stripAccentUnits(u: Units): Units {
  if (u.ascii) return u;
  const w = u.cps.join('');
  const sw = stripMn(w);
  if (sw === w) return u;
  return mapUnits(u, stripMn, sw);
}

function emit(u: Units, a: number, b: number, neverSplit: boolean, out: BasicToken[]): void {
  const bounds: number[] = [0];
  let text = '';
  for (let k = a; k < b; k++) {
    text += u.cps[k] ?? '';
    bounds.push(text.length);
  }
  out.push({
    text,
    linear: -1,
    bounds,
    starts: u.starts.slice(a, b),
    ends: u.ends.slice(a, b),
    neverSplit,
  });
}

function splitPunct(u: Units, out: BasicToken[]): void {
  const len = u.cps.length;
  let s = 0;
  for (let k = 0; k < len; k++) {
    const c = u.cps[k] ?? '';
    if (classify(c.codePointAt(0) ?? 0) & F_PUNCT) {
      if (k > s) emit(u, s, k, false, out);
      emit(u, k, k + 1, false, out);
      s = k + 1;
    }
  }
  if (s < len) emit(u, s, len, false, out);
}

function processWord(
  u0: Units,
  opts: BasicOptions,
  neverSplit: ReadonlySet<string>,
  out: BasicToken[],
): void {
  let u = u0.ascii ? u0 : nfcUnits(u0);
  if (neverSplit.size > 0 && neverSplit.has(u.cps.join(''))) {
    emit(u, 0, u.cps.length, true, out);
    return;
  }
  if (opts.doLowerCase) {
    u = lowerUnits(u);
    if (opts.stripAccents !== false) u = stripAccentUnits(u);
  } else if (opts.stripAccents === true) {
    u = stripAccentUnits(u);
  }
  splitPunct(u, out);
}

function linearToken(text: string, at: number, neverSplit: boolean): BasicToken {
  return { text, linear: at, bounds: null, starts: null, ends: null, neverSplit };
}

/** `processWord` for a contiguous all-ASCII word text[i, j): no NFC/accent work, 1:1 offsets. */
function asciiWord(
  text: string,
  i: number,
  j: number,
  opts: BasicOptions,
  neverSplit: ReadonlySet<string>,
  preLower: boolean,
  out: BasicToken[],
): void {
  const raw = text.slice(i, j);
  const seen = preLower ? raw.toLowerCase() : raw;
  if (neverSplit.size > 0 && neverSplit.has(seen)) {
    out.push(linearToken(seen, i, true));
    return;
  }
  const w = opts.doLowerCase ? seen.toLowerCase() : seen;
  let s = 0;
  for (let k = 0; k < w.length; k++) {
    if (classify(w.charCodeAt(k)) & F_PUNCT) {
      if (k > s) out.push(linearToken(w.slice(s, k), i + s, false));
      out.push(linearToken(w.charAt(k), i + k, false));
      s = k + 1;
    }
  }
  if (s < w.length) out.push(linearToken(s === 0 ? w : w.slice(s), i + s, false));
}

/**
 * Runs the basic tokenizer on `text.slice(from, to)` and appends tokens (offsets into `text`).
 * `preLower` reproduces `PreTrainedTokenizer.tokenize`'s per-character lowercasing done before
 * `_tokenize` when `do_lower_case` is set (no final-sigma context, unlike `str.lower()` on a word).
 */
export function basicTokenizeRange(
  text: string,
  from: number,
  to: number,
  opts: BasicOptions,
  neverSplit: ReadonlySet<string>,
  preLower: boolean,
  out: BasicToken[],
): void {
  let u = emptyUnits();
  const flush = (): void => {
    if (u.cps.length > 0) {
      processWord(u, opts, neverSplit, out);
      u = emptyUnits();
    }
  };
  for (let i = from; i < to;) {
    const cp = text.codePointAt(i) ?? 0;
    const w = cp > 0xffff ? 2 : 1;
    if (cp < 0x80) {
      const f = classify(cp);
      if (u.cps.length === 0 && (f & (F_REMOVE | F_SPACE)) === 0) {
        // Fast path: a plain ASCII word ending at an ASCII space or at the end of the range.
        let j = i + 1;
        while (
          j < to &&
          text.charCodeAt(j) < 0x80 &&
          (classify(text.charCodeAt(j)) & (F_REMOVE | F_SPACE)) === 0
        )
          j++;
        if (
          j === to ||
          (text.charCodeAt(j) < 0x80 && (classify(text.charCodeAt(j)) & F_SPACE) !== 0)
        ) {
          asciiWord(text, i, j, opts, neverSplit, preLower, out);
          i = j;
          continue;
        }
      }
      if (f & F_REMOVE) {
        // dropped by _clean_text
      } else if (f & F_SPACE) {
        flush();
      } else {
        u.cps.push(
          preLower && cp >= 65 && cp <= 90 ? String.fromCharCode(cp + 32) : String.fromCharCode(cp),
        );
        u.starts.push(i);
        u.ends.push(i + 1);
      }
      i += 1;
      continue;
    }
    const ch = text.slice(i, i + w);
    const lowered = preLower ? ch.toLowerCase() : ch;
    for (const c of lowered) {
      const f = classify(c.codePointAt(0) ?? 0);
      if (f & F_REMOVE) continue;
      if (f & F_SPACE) {
        flush();
        continue;
      }
      const cjk = opts.tokenizeChineseChars && (f & F_CJK) !== 0;
      if (cjk) flush();
      u.cps.push(c);
      u.starts.push(i);
      u.ends.push(i + w);
      if (c.charCodeAt(0) >= 0x80) u.ascii = false;
      if (cjk) flush();
    }
    i += w;
  }
  flush();
}
