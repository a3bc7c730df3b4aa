// Large BioC XML files read a piece at a time: sax finds where each <document> of the
// <collection> begins and ends, and each is parsed alone by fast-xml-parser with the options of
// bioc-xml.ts, so its documents are those of reading the file whole. Whole reading gives no
// documents when the file is malformed anywhere, so a first pass (biocXmlCheck) validates every
// document and the rest of the file (fast-xml-parser's validator); a file that fails, or that
// sax cannot split (an error, no <collection> root, a DOCTYPE declaring entities), is read whole.

import { XMLValidator } from 'fast-xml-parser';
import sax from 'sax';
import type { IssueSink } from './common.ts';
import type { TextParser } from './csv-rows.ts';
import { biocDocumentOf, biocXmlNodeParser, countEntityReferences, undefinedEntityIssue } from './bioc-xml.ts';
import type { XmlNode } from './bioc-xml.ts';
import { biocDocumentsInto, biocSecondPass } from './bioc-model.ts';
import type { Document, FormatIssue } from './types.ts';

/** Text outside documents beyond this (it is a few lines in BioC) is not held: the file is read whole. */
const MAX_OTHER_CHARS = 4 * 1024 * 1024;

interface Splitter extends TextParser {
  /** Whether sax read the file as one <collection> (so far, and to the end once `end` was called). */
  isSplit(): boolean;
}

/**
 * Gives each <document> child of the root its raw text (`onDocument`) and the text between them
 * (`onOther`), in order, as the pieces come. Split fails on what sax cannot read, a root other
 * than one <collection>, a DOCTYPE with declarations (they would change the documents) or
 * another `<!` declaration.
 */
function splitter(onDocument: (xml: string) => void, onOther: (xml: string) => void): Splitter {
  const parser = sax.parser(true, { position: true });
  let isSplit = true;
  let hasRoot = false;
  let depth = 0;
  let isInDocument = false;
  /** The text from stream position `base` on; what is before `from` has been given out. */
  let buf = '';
  let base = 0;
  let from = 0;
  const give = (to: number, out: (xml: string) => void): void => {
    out(buf.slice(from - base, to - base));
    from = to;
  };
  parser.onerror = () => {
    isSplit = false;
  };
  parser.ondoctype = (doctype) => {
    if (doctype.includes('[')) isSplit = false;
  };
  // `<!…` other than a DOCTYPE, comment or CDATA: not XML, and fast-xml-parser skips text after it.
  parser.onsgmldeclaration = () => {
    isSplit = false;
  };
  parser.onopentag = (tag) => {
    depth++;
    if (depth === 1) {
      if (hasRoot || tag.name !== 'collection') isSplit = false;
      hasRoot = true;
    } else if (depth === 2 && tag.name === 'document') {
      give(parser.startTagPosition - 1, onOther);
      isInDocument = true;
    }
  };
  parser.onclosetag = () => {
    if (depth === 2 && isInDocument) {
      give(parser.position, onDocument);
      isInDocument = false;
    }
    depth--;
  };
  return {
    text(piece) {
      if (!isSplit) return;
      buf += piece;
      parser.write(piece);
      buf = buf.slice(from - base);
      base = from;
    },
    end() {
      if (!isSplit) return;
      parser.close();
      if (!hasRoot) isSplit = false;
      else give(base + buf.length, onOther);
    },
    isSplit: () => isSplit,
  };
}

/** A document's text as the only document of a collection (as parsed alone). */
const alone = (xml: string): string => `<collection>${xml}</collection>`;

/**
 * The first pass: whether the file can be streamed with the documents and issues of reading it
 * whole (split by sax, and well-formed to fast-xml-parser, document by document and around them).
 */
export function biocXmlCheck(): TextParser & { isStreamable(): boolean } {
  let isValid = true;
  let other = '';
  const parser = biocXmlNodeParser();
  /** Whether fast-xml-parser validates and parses `xml` (it throws on some text its validator passes). */
  const isReadable = (xml: string): boolean => {
    if (XMLValidator.validate(xml) !== true) return false;
    try {
      parser.parse(xml);
      return true;
    } catch {
      return false;
    }
  };
  const split = splitter(
    (xml) => {
      if (isValid && !isReadable(alone(xml))) isValid = false;
    },
    (xml) => {
      other += xml;
      if (other.length > MAX_OTHER_CHARS) isValid = false;
    },
  );
  return {
    text(piece) {
      if (isValid) split.text(piece);
    },
    end() {
      if (!isValid) return;
      split.end();
      // The file without its documents, as whole reading validates it (less those documents).
      if (split.isSplit() && !isReadable(other)) isValid = false;
    },
    isStreamable: () => isValid && split.isSplit(),
  };
}

/**
 * The second pass, over a file biocXmlCheck passed: each <document>, parsed and converted as
 * bioc-xml.ts does, is appended to `documents` (which the caller may empty meanwhile). Issues go
 * to the sink at the end, in the order reading the file whole gives them.
 */
export function biocXmlParser(sink: IssueSink, documents: Document[]): TextParser & { end(isCut?: boolean): void } {
  const passageIssues: FormatIssue[] = [];
  const converted: IssueSink = { file: sink.file, issues: [] };
  const parser = biocXmlNodeParser();
  /** Entity references, counted as reading the file whole counts them (no DOCTYPE declares any here: see splitter). */
  const references = new Map<string, number>();
  let index = 0;
  const split = splitter(
    (xml) => {
      countEntityReferences(xml, references);
      const root = (parser.parse(alone(xml)) as { collection: { document: XmlNode[] } }).collection;
      const [node = {}] = root.document;
      biocDocumentsInto([biocDocumentOf(node, index++, sink.file, passageIssues)], converted, documents);
    },
    (xml) => countEntityReferences(xml, references),
  );
  return biocSecondPass(split, 'XML', () => {
    const entities = undefinedEntityIssue(references, new Set(), sink.file, parser);
    sink.issues.push(...(entities ? [entities] : []), ...passageIssues, ...converted.issues);
  });
}
