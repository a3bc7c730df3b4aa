// Raw text from disk for pretraining and distillation transfer: files or folders walked in a
// stable order, read in 1 MB chunks (never a whole corpus in memory), checked for binary or
// empty content, and turned into text lines. JSONL lines give their long string fields and
// TSV lines their longest column, so SNLI/SST-style files read as plain sentences.

import { closeSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';

const CHUNK = 1 << 20;

/** Annotation files beside their texts (brat's .ann): lines of offsets and labels, not prose. */
const ANNOTATION_FILES = /\.ann$/i;

/**
 * Text files under `root` (a file, or a folder walked recursively; hidden entries, links and
 * brat .ann files skipped).
 */
export function listTextFiles(root: string, onLink: (p: string) => void = () => {}): string[] {
  const st = statSync(root, { throwIfNoEntry: false });
  if (!st) throw new Error(`${root}: no such file or folder`);
  if (!st.isDirectory()) return [root];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = path.join(dir, name);
      const l = lstatSync(p);
      if (l.isDirectory()) walk(p);
      else if (l.isFile() && !ANNOTATION_FILES.test(name)) out.push(p);
      else if (l.isSymbolicLink()) onLink(p);
    }
  };
  walk(root);
  if (out.length === 0) throw new Error(`${root}: the folder holds no files`);
  return out;
}

/**
 * One line per folder among `roots` that holds links, which the walk skips (text from elsewhere
 * must not slip into training or transfer data): for a run's log, so none is skipped unsaid.
 */
export function skippedLinkNotes(roots: readonly string[]): string[] {
  return roots.flatMap((root) => {
    let n = 0;
    listTextFiles(root, () => n++);
    return n === 0 ? [] : [`${root}: ${n} linked file(s) or folder(s) skipped (links inside a folder are not followed)`];
  });
}

/** Why a file cannot be used as text, or undefined when it can. */
export function textProblem(file: string): string | undefined {
  const size = statSync(file).size;
  if (size === 0) return 'is empty';
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 8192));
    readSync(fd, head, 0, head.length, 0);
    if (head.includes(0)) return 'looks binary (contains NUL bytes); give plain UTF-8 text';
    let control = 0;
    for (const c of head) if (c < 9 || (c > 13 && c < 32)) control++;
    if (control > head.length * 0.05) return 'looks binary (many control characters); give plain UTF-8 text';
    if (head.toString('utf8').trim() === '') return 'holds only whitespace';
  } finally {
    closeSync(fd);
  }
  return undefined;
}

/** Lines of a file, read in chunks (UTF-8; a trailing line without newline included). */
export function* fileLines(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(CHUNK);
    let rest = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const data = Buffer.concat([rest, buf.subarray(0, n)]);
      let start = 0;
      for (let i = data.indexOf(10); i >= 0; i = data.indexOf(10, start)) {
        yield data.toString('utf8', start, i).replace(/\r$/, '');
        start = i + 1;
      }
      rest = Buffer.from(data.subarray(start));
    }
    if (rest.length > 0) yield rest.toString('utf8').replace(/\r$/, '');
  } finally {
    closeSync(fd);
  }
}

/** Plain text of one raw line: JSON string fields of a JSONL object, the longest TSV column. */
export function lineText(line: string): string {
  const s = line.trim();
  if (s.startsWith('{') && s.endsWith('}')) {
    try {
      const o = JSON.parse(s) as Record<string, unknown>;
      const parts = Object.values(o).filter((v): v is string => typeof v === 'string' && v.includes(' ') && v.length > 20);
      return [...new Set(parts)].join('\n');
    } catch {
      return s;
    }
  }
  if (s.includes('\t')) return s.split('\t').reduce((a, c) => (c.length > a.length ? c : a), '');
  // WikiText markup: " = Heading = " lines and @-@ joins.
  if (/^=( =)* .* =( =)*$/.test(s)) return '';
  return s.replace(/ @([-.,])@ /g, '$1');
}

/** Checks every file under the roots and returns them, or throws naming the unusable ones. */
export function checkTextSources(roots: readonly string[]): string[] {
  const files: string[] = [];
  const bad: string[] = [];
  for (const root of roots) {
    for (const f of listTextFiles(root)) {
      const problem = textProblem(f);
      if (problem) bad.push(`${f} ${problem}`);
      else files.push(f);
    }
  }
  if (bad.length > 0) throw new Error(`unusable text file(s): ${bad.slice(0, 5).join('; ')}${bad.length > 5 ? ` (and ${bad.length - 5} more)` : ''}`);
  return files;
}

/**
 * Paragraphs of all files, in order (streamed): runs of non-blank lines joined by spaces (hard-
 * wrapped books), cut at `maxChars`; each JSONL/TSV line is a paragraph of its own.
 */
export function* textParagraphs(files: readonly string[], maxChars = 5000): Generator<string> {
  for (const f of files) {
    let para: string[] = [];
    let size = 0;
    for (const raw of fileLines(f)) {
      const structured = raw.includes('\t') || raw.trimStart().startsWith('{');
      const text = lineText(raw);
      if (text.trim() === '' || structured || size > maxChars) {
        if (para.length > 0) yield para.join(' ');
        para = [];
        size = 0;
      }
      if (structured) {
        for (const t of text.split('\n')) if (t.trim() !== '') yield t.trim();
      } else if (text.trim() !== '') {
        para.push(text.trim());
        size += text.length;
      }
    }
    if (para.length > 0) yield para.join(' ');
  }
}
