// Large BioC JSON files read a piece at a time: a scanner finds each element of the documents
// array (the root array, or the top-level "documents" or PubTator3 array, as bioc-json.ts takes
// them) and each is parsed alone with JSON.parse and converted as bioc-json.ts does, so the
// documents are those of reading the file whole. Whole reading gives no documents when the JSON
// is malformed anywhere, so a first pass (biocJsonCheck) parses every element and the text around
// them; a file that fails, or whose documents array is not plain to find (a key repeated,
// "documents" not an array), is read whole.

import type { IssueSink } from './common.ts';
import type { TextParser } from './csv-rows.ts';
import { biocJsonDocumentOf } from './bioc-json.ts';
import { biocDocumentsInto, biocSecondPass } from './bioc-model.ts';
import type { Document, FormatIssue } from './types.ts';

/** Top-level keys whose array may hold the documents: "documents", else PubTator3's wrapper. */
const DOCUMENT_KEYS = new Set(['documents', 'PubTator3']);
/** Text outside the documents beyond this (a few lines in BioC) is not held: the file is read whole. */
const MAX_OTHER_CHARS = 4 * 1024 * 1024;

/** Where the documents are: the root array (null) or the array of a top-level key. */
type DocumentsKey = string | null;

interface Splitter extends TextParser {
  /** Whether the text scanned as JSON containers closed at the end (JSON.parse says the rest). */
  isSplit(): boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;

/**
 * Gives each element of the root array, and of the array value of a top-level "documents" or
 * "PubTator3" key, its raw text (`onElement`, with that key or null), and the text around them
 * with each element as `0` (`onOther`), in order, as the pieces come. `onKey` is told each
 * top-level key and whether its value is an array.
 */
function splitter(
  onElement: (key: DocumentsKey, json: string) => void,
  onOther: (json: string) => void,
  onKey: (key: string, isArray: boolean) => void = () => undefined,
): Splitter {
  const stack: number[] = [];
  let isSplit = true;
  let isInString = false;
  let isEscaped = false;
  let isKeyNext = false;
  let keyStart = -1;
  let key: string | null = null;
  /** The key whose value comes next (after its ':'), until the value begins. */
  let valueOf: string | null = null;
  /** The array being split (its depth in `stack`) and its key, or -1. */
  let arrayDepth = -1;
  let arrayKey: DocumentsKey = null;
  let elementStart = 0;
  let elements = 0;
  /** The text from position `base` on; what is before `from` has been given out. */
  let buf = '';
  let base = 0;
  let from = 0;
  const slice = (start: number, end: number): string => buf.slice(start - base, end - base);
  const endElement = (at: number, isLast: boolean): void => {
    const json = slice(elementStart, at);
    if (json.trim() === '') {
      // `[]` has no element; `[1,]` and `[,1]` are not JSON.
      if (!isLast || elements > 0) isSplit = false;
      return;
    }
    onOther(slice(from, elementStart));
    onOther('0');
    onElement(arrayKey, json);
    from = at;
    elements++;
  };
  const scan = (piece: string, at: number): void => {
    for (let i = 0; i < piece.length && isSplit; i++) {
      const c = piece.charCodeAt(i);
      const pos = at + i;
      if (isInString) {
        if (isEscaped) isEscaped = false;
        else if (c === BACKSLASH) isEscaped = true;
        else if (c === QUOTE) {
          isInString = false;
          if (keyStart >= 0) {
            try {
              key = JSON.parse(slice(keyStart, pos + 1)) as string;
            } catch {
              isSplit = false;
            }
            keyStart = -1;
          }
        }
        continue;
      }
      const depth = stack.length;
      switch (piece[i]) {
        case '"':
          isInString = true;
          if (depth === 1 && stack[0] === 123 && isKeyNext) keyStart = pos;
          if (depth === 1 && valueOf !== null) {
            onKey(valueOf, false);
            valueOf = null;
          }
          isKeyNext = false;
          break;
        case ':':
          if (depth === 1 && key !== null) {
            valueOf = key;
            key = null;
          }
          break;
        case ',':
          if (depth === 1) isKeyNext = stack[0] === 123;
          if (depth === arrayDepth) {
            endElement(pos, false);
            elementStart = pos + 1;
          }
          break;
        case '{':
        case '[': {
          const isArray = piece[i] === '[';
          if (depth === 1 && valueOf !== null) onKey(valueOf, isArray);
          const isDocuments = isArray && arrayDepth < 0 && (depth === 0 || (depth === 1 && valueOf !== null && DOCUMENT_KEYS.has(valueOf)));
          if (isDocuments) {
            arrayDepth = depth + 1;
            arrayKey = depth === 0 ? null : valueOf;
            elementStart = pos + 1;
            elements = 0;
          }
          if (depth === 1) valueOf = null;
          stack.push(c);
          if (depth === 0) isKeyNext = !isArray;
          break;
        }
        case '}':
        case ']':
          if (depth === 0 || stack[depth - 1] !== (c === 125 ? 123 : 91)) isSplit = false;
          else if (depth === arrayDepth) {
            endElement(pos, true);
            arrayDepth = -1;
          }
          stack.pop();
          break;
        default:
          // A scalar value of a top-level key.
          if (depth === 1 && valueOf !== null && c > 32) {
            onKey(valueOf, false);
            valueOf = null;
          }
      }
    }
  };
  return {
    text(piece) {
      if (!isSplit) return;
      const at = base + buf.length;
      buf += piece;
      scan(piece, at);
      buf = buf.slice(from - base);
      base = from;
    },
    end() {
      if (isInString || stack.length > 0) isSplit = false;
      if (isSplit) onOther(slice(from, base + buf.length));
    },
    isSplit: () => isSplit,
  };
}

/**
 * The first pass: whether the file can be streamed with the documents and issues of reading it
 * whole, and from which array (every element and the text around them parse as JSON, and the
 * documents array is the one bioc-json.ts takes). Undefined: read it whole.
 */
export function biocJsonCheck(): TextParser & { documentsKey(): DocumentsKey | undefined } {
  let isValid = true;
  let other = '';
  let isRootArray = false;
  const keys = new Map<string, { count: number; arrays: number }>();
  const split = splitter(
    (key, json) => {
      if (key === null) isRootArray = true;
      if (!isValid) return;
      try {
        JSON.parse(json);
      } catch {
        isValid = false;
      }
    },
    (json) => {
      other += json;
      if (other.length > MAX_OTHER_CHARS) isValid = false;
    },
    (key, isArray) => {
      const k = keys.get(key) ?? { count: 0, arrays: 0 };
      keys.set(key, { count: k.count + 1, arrays: k.arrays + (isArray ? 1 : 0) });
    },
  );
  let documentsKey: DocumentsKey | undefined;
  return {
    text(piece) {
      if (isValid) split.text(piece);
    },
    end() {
      if (!isValid) return;
      split.end();
      let root: unknown;
      try {
        root = JSON.parse(other);
      } catch {
        return;
      }
      if (!split.isSplit()) return;
      const documents = keys.get('documents');
      const pubtator = keys.get('PubTator3');
      if (Array.isArray(root)) documentsKey = isRootArray || root.length === 0 ? null : undefined;
      else if (documents) documentsKey = documents.count === 1 && documents.arrays === 1 ? 'documents' : undefined;
      else if (pubtator) documentsKey = pubtator.count === 1 && pubtator.arrays === 1 ? 'PubTator3' : undefined;
    },
    documentsKey: () => (isValid ? documentsKey : undefined),
  };
}

/**
 * The second pass, over a file biocJsonCheck passed: each element of the `key` array, parsed and
 * converted as bioc-json.ts does, is appended to `documents` (which the caller may empty
 * meanwhile). Issues go to the sink at the end, in the order reading the file whole gives them.
 */
export function biocJsonParser(sink: IssueSink, documents: Document[], key: DocumentsKey): TextParser & { end(isCut?: boolean): void } {
  const passageIssues: FormatIssue[] = [];
  const converted: IssueSink = { file: sink.file, issues: [] };
  let index = 0;
  const split = splitter(
    (k, json) => {
      if (k !== key) return;
      const value: unknown = JSON.parse(json);
      biocDocumentsInto([biocJsonDocumentOf(value, index++, sink.file, passageIssues)], converted, documents);
    },
    () => undefined,
  );
  return biocSecondPass(split, 'JSON', () => sink.issues.push(...passageIssues, ...converted.issues));
}
