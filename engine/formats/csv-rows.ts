// CSV/TSV row splitting (RFC 4180 quoting, CR/LF kept inside quotes) for text given a piece at a
// time, so a large file is split as it is read; the whole text given at once splits the same way.
// Not for: headers, columns or documents (csv.ts).

import type { IssueSink } from './common.ts';
import { addError } from './common.ts';

/** One row of cells and the 1-based line it starts on. */
export interface CsvRow {
  cells: string[];
  line: number;
  /** Line of the last unclosed quote before this row: a row of the wrong width may be the rest of that field. */
  afterUnclosed?: number;
}

/** Text read a piece at a time (the pieces in order, then `end`). */
export interface TextParser {
  text(piece: string): void;
  /** After the last piece: completes the last row (or document). */
  end(): void;
}

/**
 * A row holding more characters is not waited for: its line is skipped as an unclosed quote is
 * (no document may be that long, and holding it whole would grow towards V8's string limit).
 */
export const MAX_ROW_CHARS = 64 * 1024 * 1024;

/** Where the first line end (LF or CR) in `s` from `from` is; -1 when none. */
function lineEndAt(s: string, from: number): number {
  const lf = s.indexOf('\n', from);
  const cr = s.indexOf('\r', from);
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
}

/**
 * Splits CSV text into rows with their 1-based start lines, given to `onRow` as they complete.
 * Lines are physical lines, inside quoted fields too: each CR LF, LF or lone CR ends one (a lone CR
 * ends a row, as in a classic Mac file). A quote left open to the end of the text (or for
 * MAX_ROW_CHARS) skips the line it opened on, and the rows after it are read from the next line.
 */
export function csvRowReader(delimiter: string, sink: IssueSink, onRow: (row: CsvRow) => void): TextParser {
  // The text not read yet is buf[pos…]; the row being read is `held` (its text from earlier
  // pieces, kept for an unclosed quote's sake: pieces, not one string, so a long quoted field is
  // not copied again with every piece) followed by buf[rowStart…].
  let buf = '';
  let pos = 0;
  let rowStart = 0;
  let held: string[] = [];
  let heldChars = 0;
  let line = 1;
  let startLine = 1;
  let isInRow = false;
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let atStart = true;
  let unclosedAt: number | undefined;
  /** Skipping an over-long line up to its line break. */
  let isSkipping = false;
  /** The skipped line ended with CR: an LF next is part of that line end. */
  let isAfterSkippedCr = false;
  /** The last character of the quoted field read so far is CR: an LF next is part of that line end. */
  let isAfterCr = false;
  /** Where the next CR in `buf` is (-1: none; undefined: not looked for in this `buf` yet), found once, not for every field. */
  let crAt: number | undefined;
  // A delimiter of other than one character never matches (as one character is compared).
  const d = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1;

  /** Skips the row's first line and reads on from the next (an unclosed quote, an over-long row). */
  const skipLine = (message: string, isQuote: boolean): void => {
    addError(sink, message, startLine);
    if (isQuote) unclosedAt = startLine;
    isInRow = false;
    const rest = held.join('') + buf.slice(rowStart);
    held = [];
    heldChars = 0;
    const end = lineEndAt(rest, 0);
    line = startLine + 1;
    // Without a line break, the rest of the line is yet to be read (or never).
    buf = end >= 0 ? rest.slice(end + 1) : '';
    crAt = undefined;
    pos = 0;
    isSkipping = end < 0;
    isAfterSkippedCr = end >= 0 && rest[end] === '\r';
  };

  /** Reads a field's characters up to a quote (quoted) or a delimiter or line end (unquoted). */
  const scan = (): void => {
    const from = pos;
    if (quoted) {
      const q = buf.indexOf('"', pos);
      pos = q < 0 ? buf.length : q;
      // Physical lines: each CR, and each LF not after a CR (a CR LF's CR may end the last piece).
      for (let nl = buf.indexOf('\n', from); nl >= 0 && nl < pos; nl = buf.indexOf('\n', nl + 1)) {
        if (!(nl === from ? isAfterCr : buf.charCodeAt(nl - 1) === 13)) line++;
      }
      if (crAt === undefined || (crAt >= 0 && crAt < from)) crAt = buf.indexOf('\r', from);
      for (; crAt >= 0 && crAt < pos; crAt = buf.indexOf('\r', crAt + 1)) line++;
      if (pos > from) isAfterCr = buf.charCodeAt(pos - 1) === 13;
    } else {
      for (; pos < buf.length; pos++) {
        const c = buf.charCodeAt(pos);
        if (c === d || c === 10 || c === 13) break;
      }
    }
    if (pos > from) {
      cell += buf.slice(from, pos);
      atStart = false;
    }
  };

  /** Reads rows from `pos`; stops where more text is needed (a row's end unknown yet) unless `isEnd`. */
  const run = (isEnd: boolean): void => {
    for (;;) {
      if (isSkipping) {
        const end = lineEndAt(buf, pos);
        if (end < 0) {
          pos = buf.length;
          return;
        }
        pos = end + 1;
        isSkipping = false;
        isAfterSkippedCr = buf[end] === '\r';
      }
      if (isAfterSkippedCr) {
        if (pos >= buf.length && !isEnd) return; // CR LF or CR: not known yet
        if (buf[pos] === '\n') pos++;
        isAfterSkippedCr = false;
      }
      if (!isInRow) {
        if (pos >= buf.length) return;
        isInRow = true;
        startLine = line;
        rowStart = pos;
        held = [];
        heldChars = 0;
        cells = [];
        cell = '';
        quoted = false;
        atStart = true;
      }
      let failed = false;
      for (;;) {
        if (pos >= buf.length) {
          if (!isEnd) return;
          if (quoted) failed = true;
          break;
        }
        const ch = buf[pos];
        if (quoted) {
          if (ch === '"') {
            if (pos + 1 >= buf.length && !isEnd) return; // "" or the closing quote: not known yet
            isAfterCr = false;
            if (buf[pos + 1] === '"') {
              cell += '"';
              pos += 2;
            } else {
              quoted = false;
              pos++;
            }
          } else scan();
          continue;
        }
        if (ch === '"' && atStart) {
          quoted = true;
          isAfterCr = false;
          atStart = false;
          pos++;
        } else if (ch === delimiter) {
          cells.push(cell);
          cell = '';
          atStart = true;
          pos++;
        } else if (ch === '\n' || ch === '\r') {
          if (ch === '\r' && pos + 1 >= buf.length && !isEnd) return; // CR LF or CR: not known yet
          pos += ch === '\r' && buf[pos + 1] === '\n' ? 2 : 1;
          line++;
          break;
        } else if (ch === '"') {
          cell += ch;
          pos++;
        } else scan();
      }
      if (failed) {
        skipLine('unclosed quote; line skipped', true);
        continue;
      }
      isInRow = false;
      cells.push(cell);
      if (cells.length > 1 || cells[0] !== '') {
        onRow({ cells, line: startLine, ...(unclosedAt !== undefined && { afterUnclosed: unclosedAt }) });
      }
    }
  };

  const limit = MAX_ROW_CHARS.toLocaleString('en-US');
  return {
    text(piece) {
      buf = pos < buf.length ? buf.slice(pos) + piece : piece;
      crAt = undefined;
      pos = 0;
      rowStart = 0;
      run(false);
      while (isInRow) {
        // The row read so far is held (an unclosed quote reads on from its second line).
        held.push(buf.slice(rowStart, pos));
        heldChars += pos - rowStart;
        rowStart = pos;
        if (heldChars <= MAX_ROW_CHARS) return;
        if (quoted) skipLine(`quote not closed within ${limit} characters (no field is that long); line skipped`, true);
        else skipLine(`line longer than ${limit} characters (no record is); skipped`, false);
        run(false);
      }
    },
    end() {
      run(true);
    },
  };
}
