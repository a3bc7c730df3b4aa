// PubTator importer/exporter: `PMID|t|title`, `PMID|a|abstract`, entity lines
// `PMID<TAB>start<TAB>end<TAB>mention<TAB>type<TAB>ids[<TAB>composite mentions]` and relation
// lines `PMID<TAB>CID<TAB>id1<TAB>id2`. Text = title + '\n' + abstract (offsets as PubTator).

import type { Document, Entity, Relation } from './types.ts';
import type { LineParser } from './stream.ts';
import type { ExportResult, ImportResult, IssueSink, LossCounts, RelationDraft, StreamExporter } from './common.ts';
import {
  addEntity,
  addError,
  addWarning,
  countLoss,
  exportAll,
  finishDocument,
  joinedParts,
  lossIssues,
  offsetMap,
  sortIssues,
  splitLines,
  textSlices,
} from './common.ts';

/** Entity attribute that holds PubTator's 7th column (individual mentions of a composite). */
export const COMPOSITE_MENTIONS = 'composite_mentions';

interface Pending {
  id: string;
  line: number;
  title: string;
  abstract?: string;
  annotations: { cols: string[]; line: number }[];
}

// `s`: a title may hold U+2028/U+2029 (text pasted from the web or Word), which `.` skips otherwise.
const TITLE_RE = /^([^|\t]+)\|([ta])\|(.*)$/s;
const INT_RE = /^-?\d+$/;

/** Parses PubTator text into documents; malformed lines become issues and are skipped. */
export function importPubtator(content: string, file: string): ImportResult {
  const result: ImportResult = { documents: [], issues: [] };
  const parser = pubtatorParser({ file, issues: result.issues }, result.documents);
  const lines = splitLines(content);
  for (let i = 0; i < lines.length; i++) parser.line(lines[i] ?? '', i + 1);
  if (lines.length > 0 && !/[\r\n]$/.test(content)) parser.unterminated?.(lines.length);
  parser.end();
  sortIssues(result.issues);
  return result;
}

/**
 * A PubTator parser fed line by line (a large file is read a chunk at a time): completed
 * documents are appended to `documents`, issues to the sink (in the order found; sort them).
 */
export function pubtatorParser(sink: IssueSink, documents: Document[]): LineParser {
  let cur: Pending | null = null;
  let extraRelationCols = 0;
  let lastKept: Pending['annotations'][number] | undefined;
  const flush = (): void => {
    if (cur) documents.push(buildDocument(cur, sink));
    cur = null;
  };
  const line = (raw: string, lineNo: number): void => {
    if (raw.trim() === '') {
      flush();
      return;
    }
    const m = TITLE_RE.exec(raw);
    if (m) {
      const [, pmid = '', kind, body = ''] = m;
      if (kind === 't') {
        flush();
        cur = { id: pmid, line: lineNo, title: body, annotations: [] };
      } else if (cur !== null && cur.id === pmid && cur.abstract === undefined) {
        cur.abstract = body;
      } else {
        addError(sink, 'abstract line without a matching title line; skipped', lineNo);
      }
      return;
    }
    const cols = raw.split('\t');
    // A line with no tab is no annotation: calling it one "with a different PMID" (its whole
    // text taken for the PMID) sent people looking for a PMID mismatch that was not there.
    if (cols.length === 1) {
      addError(sink, 'not a PubTator line (PMID|t|title, PMID|a|abstract, or tab-separated annotation columns); skipped', lineNo);
    } else if (cur === null) {
      addError(sink, 'annotation line outside a document; skipped', lineNo);
    } else if (cols[0] !== cur.id) {
      addError(sink, 'annotation line with a different PMID than its document; skipped', lineNo);
    } else if (cols.length >= 5 && INT_RE.test(cols[1] ?? '') && INT_RE.test(cols[2] ?? '')) {
      cur.annotations.push((lastKept = { cols, line: lineNo }));
    } else if (cols.length >= 4 && cols.length <= 5 && !INT_RE.test(cols[1] ?? '') && cols[1] !== '' && cols[2] && cols[3]) {
      if (cols.length > 4) extraRelationCols++;
      cur.annotations.push((lastKept = { cols, line: lineNo }));
    } else {
      addError(sink, 'malformed annotation line; skipped', lineNo);
    }
  };
  const end = (): void => {
    flush();
    if (extraRelationCols > 0) addWarning(sink, `${extraRelationCols} relation lines had extra columns; dropped`);
  };
  // A file cut off (an interrupted copy) ends mid-line, and a cut annotation line can still parse
  // ("Dise" for "Disease"): a kept last annotation without its line break is pointed out.
  const unterminated = (lineNo: number): void => {
    if (lastKept?.line === lineNo && cur !== null && cur.annotations.at(-1) === lastKept)
      addWarning(sink, `the file ends without a line break after this annotation of document ${cur.id}: if the file was cut off, check that its type and ids are whole`, lineNo);
  };
  return { line, end, unterminated };
}

function buildDocument(p: Pending, sink: IssueSink): Document {
  const text = p.abstract === undefined || p.abstract === '' ? p.title : `${p.title}\n${p.abstract}`;
  const doc: Document = { id: p.id, text, entities: [], relations: [] };
  doc.passages = [{ type: 'title', start: 0, end: p.title.length }];
  if (text.length > p.title.length) doc.passages.push({ type: 'abstract', start: p.title.length + 1, end: text.length });
  const om = offsetMap(text);
  const relations: RelationDraft[] = [];
  let n = 0;
  for (const { cols, line } of p.annotations) {
    if (INT_RE.test(cols[1] ?? '')) {
      const [, s = '', e = '', mention = '', type = '', ids = '', composite] = cols;
      // NCBI-disease writes some ids after a space (`\t D008661`): an id is never padded.
      const normIds = ids.split('|').map((x) => x.trim()).filter((x) => x !== '' && x !== '-1');
      const id = `T${++n}`;
      const spans = [{ start: om.toUnit(Number(s)), end: om.toUnit(Number(e)) }];
      const attributes: Record<string, string> = composite !== undefined ? { [COMPOSITE_MENTIONS]: composite } : {};
      addEntity(doc, { id, type, spans, mention, normIds, attributes }, sink, line);
    } else {
      const [, type = '', arg1 = '', arg2 = ''] = cols;
      relations.push({ relation: { id: `R${relations.length + 1}`, type, arg1, arg2, byConcept: true }, line });
    }
  }
  finishDocument(doc, relations, sink, p.line);
  return doc;
}

/** PubTator keeps one line per field: tabs and line breaks become spaces (same length). */
const flat = (s: string): string => s.replace(/[\t\r\n]/g, ' ');

/** Title/abstract split: the title passage when it ends at a line break, else the first one. */
function splitTitle(doc: Document): number {
  const t = doc.passages?.find((p) => p.type === 'title' && p.start === 0);
  if (t && (t.end === doc.text.length || doc.text[t.end] === '\n')) return t.end;
  const nl = doc.text.indexOf('\n');
  return nl < 0 ? doc.text.length : nl;
}

/** Exports documents as one PubTator file; issues say what the format could not hold. */
export function exportPubtator(docs: readonly Document[], opts: { name?: string } = {}): ExportResult {
  return exportAll(pubtatorExporter(opts), docs);
}

/** The PubTator exporter, one document at a time (blocks separated by a blank line). */
export function pubtatorExporter(opts: { name?: string } = {}): StreamExporter {
  const name = opts.name ?? 'documents.pubtator.txt';
  const losses: LossCounts = new Map();
  let isFirst = true;
  // A block in parts: the title and abstract lines in slices, the annotation lines a few at a time.
  const add = function* (doc: Document): Generator<string> {
    const id = doc.id.replace(/[|\t\r\n]/g, '_');
    if (id !== doc.id) countLoss(losses, 'document ids with |, tab or line breaks changed');
    const cut = splitTitle(doc);
    const title = doc.text.slice(0, cut);
    const abstract = doc.text.slice(cut + 1);
    if (/[\r\n]/.test(title) || /[\r\n]/.test(abstract)) countLoss(losses, 'documents had line breaks replaced by spaces');
    // Title + '\n' + an empty abstract reads back as the title alone: the line break is lost.
    const readLength = abstract === '' ? cut : doc.text.length;
    if (readLength < doc.text.length) countLoss(losses, 'documents ending in a line break after the title lost it');
    const oneLine = (x: string): string => x.replace(/[\r\n]/g, ' ');
    const rebuilt = [{ type: 'title', start: 0, end: cut }, ...(abstract === '' ? [] : [{ type: 'abstract', start: cut + 1, end: doc.text.length }])];
    if (doc.passages && doc.passages.length > 0 && JSON.stringify(doc.passages) !== JSON.stringify(rebuilt))
      countLoss(losses, 'documents had passage boundaries dropped (read back as title and abstract)');
    yield `${isFirst ? '' : '\n'}${id}|t|`;
    isFirst = false;
    for (const slice of textSlices(title)) yield oneLine(slice);
    yield `\n${id}|a|`;
    for (const slice of textSlices(abstract)) yield oneLine(slice);
    yield '\n';
    const om = offsetMap(doc.text);
    yield* joinedParts(doc.entities, (e) => entityLine(id, e, om.toCodePoint, losses, readLength).map((line) => `${line}\n`).join(''));
    yield* joinedParts(doc.relations, (r) => relationLine(id, r, losses));
    if (doc.metadata && Object.keys(doc.metadata).length > 0) countLoss(losses, 'documents had metadata dropped');
  };
  return { name, start: () => '', add, finish: () => ({ tail: '', issues: lossIssues(losses, name) }) };
}

/** A relation's line (with its line break), or none when PubTator cannot hold it. */
function relationLine(id: string, r: Relation, losses: LossCounts): string {
  if (r.byConcept === true && [r.type, r.arg1, r.arg2].some((x) => flat(x) !== x)) countLoss(losses, 'relations had tabs or line breaks replaced by spaces');
  let line = '';
  if (r.byConcept === true) line = `${[id, flat(r.type), flat(r.arg1), flat(r.arg2)].join('\t')}\n`;
  else countLoss(losses, 'relations between entity ids (not concept ids) dropped');
  if (r.score !== undefined) countLoss(losses, 'relation scores dropped');
  return line;
}

function entityLine(id: string, e: Entity, toCp: (n: number) => number, losses: LossCounts, readLength: number): string[] {
  const first = e.spans[0];
  if (!first || e.spans.length > 1) {
    countLoss(losses, 'discontinuous entities dropped');
    return [];
  }
  // An entity reaching past the text read back (over a lost final line break) ends before it.
  const span = { start: first.start, end: Math.min(first.end, readLength) };
  if (span.end < first.end) countLoss(losses, 'entities ending on that line break end before it');
  if (span.end <= span.start) return [];
  if (e.score !== undefined) countLoss(losses, 'entity scores dropped');
  const { [COMPOSITE_MENTIONS]: composite, ...rest } = e.attributes ?? {};
  if (Object.keys(rest).length > 0) countLoss(losses, 'entities had attributes dropped');
  const ids = e.normIds && e.normIds.length > 0 ? e.normIds.join('|') : '-1';
  if (e.normIds?.some((n) => /[|\t\r\n]/.test(n))) countLoss(losses, 'entities had normalised ids holding | (read back split there) or tabs');
  if (flat(e.type) !== e.type) countLoss(losses, 'entities had tabs or line breaks in their type replaced by spaces');
  const cols = [id, String(toCp(span.start)), String(toCp(span.end)), flat(e.text), flat(e.type), flat(ids)];
  if (composite !== undefined) cols.push(flat(composite));
  return [cols.join('\t')];
}
