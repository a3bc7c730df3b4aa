// brat standoff importer/exporter (.txt + .ann). T (incl. discontinuous `Type 0 5;10 15`),
// R, `*` equivalences, A/M attributes and N normalisations are read; E events and # notes are
// dropped with a warning. Offsets in .ann are code points into the .txt, CRLF kept as is.

import type { Document, Entity, FormatIssue, Span } from './types.ts';
import type { ExportResult, ImportResult, IssueSink, LossCounts, RelationDraft } from './common.ts';
import {
  addEntity,
  addError,
  addWarning,
  countLoss,
  fileStem,
  finishDocument,
  joinedParts,
  lossIssues,
  makeIssue,
  offsetMap,
  safeFileName,
  sortIssues,
  splitLines,
  textSlices,
} from './common.ts';

/** Relation type written as a brat `*` equivalence line. */
export const EQUIV = 'Equiv';

const SPAN_RE = /^(\d+) (\d+)$/;

const MISMATCH = 'mention text does not match';
const OUTSIDE = 'offsets outside the text';

/**
 * A brat document whose .txt began with a UTF-8 byte-order mark (`text` has it stripped). brat
 * itself counts the mark as character 0, other tools do not: the reading whose mentions match
 * their offsets is kept, and when that is brat's, the spans are moved back by one to the text
 * without the mark, with a note saying so.
 */
export function importBratAfterBom(text: string, ann: string, file: string, id: string = fileStem(file)): ImportResult {
  const plain = importBrat(text, ann, file, id);
  const counted = importBrat(`\uFEFF${text}`, ann, file, id);
  const doc = counted.documents[0];
  if (!doc || misses(counted) >= misses(plain)) return plain;
  const back = (p: number): number => Math.max(0, p - 1);
  doc.text = text;
  for (const e of doc.entities) e.spans = e.spans.map((sp) => ({ start: back(sp.start), end: back(sp.end) }));
  counted.issues.push(makeIssue('warning', file, "the .txt starts with a byte-order mark, which brat counts as character 0: offsets read brat's way (the mentions match them)"));
  return counted;
}

/** Mentions that do not match their offsets; a span past the end of the text is as telling. */
const misses = (r: ImportResult): number => r.issues.filter((i) => i.message.includes(MISMATCH) || i.message.includes(OUTSIDE)).length;

/**
 * A brat document whose .txt has Windows line ends (CRLF). Its offsets count both characters,
 * as brat does, unless the .txt was converted after it was annotated (git's autocrlf, a Windows
 * editor): then each line end counts as one. The reading whose mentions match their offsets is
 * kept; when that is the converted one, the spans are moved onto the text as it is (CRLF kept),
 * with a note saying so.
 */
export function importBratCrlf(text: string, ann: string, file: string, id: string = fileStem(file)): ImportResult {
  const plain = importBrat(text, ann, file, id);
  if (!text.includes('\r\n') || misses(plain) === 0) return plain;
  const converted = importBrat(text.replace(/\r\n/g, '\n'), ann, file, id);
  const doc = converted.documents[0];
  if (!doc || misses(converted) >= misses(plain)) return plain;
  // Where each CRLF's LF is in the converted text, in order.
  const breaks: number[] = [];
  for (let i = text.indexOf('\r\n'); i >= 0; i = text.indexOf('\r\n', i + 2)) breaks.push(i - breaks.length);
  const onText = (p: number): number => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((breaks[mid] ?? 0) < p) lo = mid + 1;
      else hi = mid;
    }
    return p + lo;
  };
  doc.text = text;
  for (const e of doc.entities) {
    e.spans = e.spans.map((sp) => ({ start: onText(sp.start), end: onText(sp.end) }));
    e.text = e.spans.map((sp) => text.slice(sp.start, sp.end)).join(' ');
  }
  converted.issues.push(
    makeIssue('warning', file, 'the .txt has Windows line ends (CRLF) but its offsets count each line end as one character (converted after annotation?): offsets read that way (the mentions match them), the text kept as it is'),
  );
  return converted;
}

/** Imports one brat document from its text and annotation file contents (`file` names the .ann). */
export function importBrat(text: string, ann: string, file: string, id: string = fileStem(file)): ImportResult {
  const doc: Document = { id, text, entities: [], relations: [] };
  const issues: ImportResult['issues'] = [];
  const sink: IssueSink = { file, issues };
  const om = offsetMap(text);
  const lines = splitLines(ann);
  const later: { cols: string[]; line: number }[] = [];
  const relations: RelationDraft[] = [];
  let events = 0;
  let notes = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const line = i + 1;
    if (raw.trim() === '') continue;
    const cols = raw.split('\t');
    const key = cols[0] ?? '';
    const head = cols[1];
    if (head === undefined) {
      addError(sink, 'malformed line (no tab); skipped', line);
      continue;
    }
    switch (key[0]) {
      case 'T': {
        const sp = head.indexOf(' ');
        const type = sp < 0 ? '' : head.slice(0, sp);
        const spans = parseSpans(sp < 0 ? '' : head.slice(sp + 1));
        if (!spans) {
          addError(sink, `entity ${key}: malformed offsets; skipped`, line);
          break;
        }
        const mapped = spans.map((s) => ({ start: om.toUnit(s.start), end: om.toUnit(s.end) }));
        const mention = cols.slice(2).join('\t');
        addEntity(doc, { id: key, type, spans: mapped, ...(cols.length > 2 ? { mention } : {}) }, sink, line);
        break;
      }
      case 'R': {
        const [type = '', ...args] = head.split(' ');
        if (!type || args.length !== 2 || args.some((a) => !a.includes(':'))) {
          addError(sink, `relation ${key}: malformed line; skipped`, line);
          break;
        }
        // Arg1 is the first argument even when a tool lists `Arg2:T2 Arg1:T1`.
        if (/^Arg2:/i.test(args[0] ?? '') && /^Arg1:/i.test(args[1] ?? '')) args.reverse();
        const ids = args.map((a) => a.slice(a.indexOf(':') + 1));
        relations.push({ relation: { id: key, type, arg1: ids[0] ?? '', arg2: ids[1] ?? '' }, line });
        break;
      }
      case '*': {
        const [type = '', ...ids] = head.split(' ');
        if (ids.length < 2) addError(sink, 'equivalence with fewer than two members; skipped', line);
        for (let k = 1; k < ids.length; k++) {
          const relation = { id: `*${relations.length + 1}`, type, arg1: ids[k - 1] ?? '', arg2: ids[k] ?? '' };
          relations.push({ relation, line });
        }
        break;
      }
      case 'A':
      case 'M':
      case 'N':
        later.push({ cols, line });
        break;
      case 'E':
        events++;
        break;
      case '#':
        notes++;
        break;
      default:
        addError(sink, 'unknown annotation kind; skipped', line);
    }
  }
  const byId = new Map(doc.entities.map((e) => [e.id, e]));
  for (const { cols, line } of later) applyAttributeOrNorm(cols, line, byId, sink);
  finishDocument(doc, relations, sink);
  if (events > 0) addWarning(sink, `${events} event (E) annotations dropped (their trigger entities are kept)`);
  if (notes > 0) addWarning(sink, `${notes} annotator notes (#) dropped`);
  return { documents: [doc], issues: sortIssues(issues) };
}

function parseSpans(s: string): Span[] | null {
  const spans: Span[] = [];
  for (const part of s.split(';')) {
    const m = SPAN_RE.exec(part.trim());
    if (!m) return null;
    spans.push({ start: Number(m[1]), end: Number(m[2]) });
  }
  return spans.length > 0 ? spans : null;
}

function applyAttributeOrNorm(cols: string[], line: number, byId: Map<string, Entity>, sink: IssueSink): void {
  const key = cols[0] ?? '';
  const parts = (cols[1] ?? '').split(' ');
  const [name = '', target = '', value] = parts;
  if (!name || !target) {
    addError(sink, `${key}: malformed line; skipped`, line);
    return;
  }
  const entity = byId.get(target);
  if (!entity) {
    const what = key.startsWith('N') ? 'normalisation' : 'attribute';
    addWarning(sink, `${key}: ${what} of ${target}, which is not a kept entity; dropped`, line);
    return;
  }
  if (key.startsWith('N')) {
    if (!value) addError(sink, `${key}: missing reference id; skipped`, line);
    else (entity.normIds ??= []).push(value);
  } else {
    (entity.attributes ??= {})[name] = parts.length > 2 ? parts.slice(2).join(' ') : 'true';
  }
}

const oneLine = (s: string): string => s.replace(/[\t\r\n]/g, ' ');
const token = (s: string): string => s.replace(/\s+/g, '_');

/** Exports each document as `<id>.txt` + `<id>.ann`; issues say what brat could not hold. */
export function exportBrat(docs: readonly Document[]): ExportResult {
  const exporter = bratExporter();
  const files = docs.flatMap((doc) => exporter.add(doc).map((f) => ({ name: f.name, content: [...f.parts].join('') })));
  return { files, issues: exporter.finish() };
}

/** One file of a brat pair, its content in parts (a long document is never one string; see StreamExporter). */
export interface BratFile {
  name: string;
  parts: Iterable<string>;
}

/** The brat exporter, one document (one .txt/.ann pair) at a time; file names stay unique. */
export function bratExporter(): { add(doc: Document): BratFile[]; finish(): FormatIssue[] } {
  const losses: LossCounts = new Map();
  const taken = new Set<string>();
  return {
    add(doc) {
      const stem = safeFileName(doc.id, taken);
      // The file name is the id read back.
      if (stem !== doc.id) countLoss(losses, 'document ids changed to make safe, distinct file names');
      const files = [{ name: `${stem}.txt`, parts: textSlices(doc.text) }, { name: `${stem}.ann`, parts: annFor(doc, losses) }];
      if (doc.metadata && Object.keys(doc.metadata).length > 0) countLoss(losses, 'documents had metadata dropped');
      if (doc.passages && doc.passages.length > 0) countLoss(losses, 'documents had passage boundaries dropped');
      // Written first in the .txt it is a UTF-8 byte-order mark, which reading strips.
      if (doc.text.startsWith('\uFEFF')) countLoss(losses, 'documents starting with U+FEFF (a byte-order mark) read back without it');
      return files;
    },
    finish: () => lossIssues(losses, 'brat export'),
  };
}

/** Keeps brat-shaped ids (`T3`, `R2`) and renumbers the others without collisions. */
function idAssigner(prefix: string, existing: readonly string[]): (id: string) => string {
  const re = new RegExp(`^${prefix}\\d+$`);
  const reserved = new Set(existing.filter((id) => re.test(id)));
  const assigned = new Set<string>();
  let next = 1;
  return (id) => {
    if (re.test(id) && !assigned.has(id)) {
      assigned.add(id);
      return id;
    }
    while (reserved.has(`${prefix}${next}`) || assigned.has(`${prefix}${next}`)) next++;
    const fresh = `${prefix}${next}`;
    assigned.add(fresh);
    return fresh;
  };
}

/** The .ann lines of `doc`, in parts; what brat cannot hold is counted in `losses` at once. */
function annFor(doc: Document, losses: LossCounts): Iterable<string> {
  const om = offsetMap(doc.text);
  const ids = new Map<string, string>();
  const entityId = idAssigner('T', doc.entities.map((e) => e.id));
  const out: string[] = [];
  let nA = 0;
  let nN = 0;
  for (const e of doc.entities) {
    const tid = entityId(e.id);
    ids.set(e.id, tid);
    if (/\s/.test(e.type)) countLoss(losses, 'entities had whitespace in their type replaced by _');
    const spans = e.spans.map((s) => `${om.toCodePoint(s.start)} ${om.toCodePoint(s.end)}`).join(';');
    out.push(`${tid}\t${token(e.type)} ${spans}\t${oneLine(e.text)}`);
    for (const n of e.normIds ?? []) {
      if (/\s/.test(n)) countLoss(losses, 'normalised ids had whitespace replaced by _');
      out.push(`N${++nN}\tReference ${tid} ${token(n)}\t${oneLine(e.text)}`);
    }
    for (const [k, v] of Object.entries(e.attributes ?? {})) {
      if (/\s/.test(k) || /\s/.test(v) || !k) countLoss(losses, 'entity attributes with whitespace dropped');
      else out.push(v === 'true' ? `A${++nA}\t${k} ${tid}` : `A${++nA}\t${k} ${tid} ${v}`);
    }
    if (e.score !== undefined) countLoss(losses, 'entity scores dropped');
  }
  const relationId = idAssigner('R', doc.relations.map((r) => r.id));
  for (const r of doc.relations) {
    const a1 = ids.get(r.arg1);
    const a2 = ids.get(r.arg2);
    if (r.byConcept === true || a1 === undefined || a2 === undefined) {
      countLoss(losses, 'relations between concept ids (not entities) dropped');
      continue;
    }
    if (r.score !== undefined) countLoss(losses, 'relation scores dropped');
    if (/\s/.test(r.type)) countLoss(losses, 'relations had whitespace in their type replaced by _');
    if (r.type === EQUIV) out.push(`*\t${EQUIV} ${a1} ${a2}`);
    else out.push(`${relationId(r.id)}\t${token(r.type)} Arg1:${a1} Arg2:${a2}`);
  }
  return joinedParts(out, (line) => `${line}\n`);
}
