// BioC XML importer/exporter (collection/document/passage/annotation/relation, infons, multiple
// locations = discontinuous). Parsing uses fast-xml-parser; a CR in text is written as &#13;
// because XML parsers normalise raw CRLF, which would shift offsets.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Document, FormatIssue } from './types.ts';
import type { ExportResult, ImportResult, LossCounts, StreamExporter } from './common.ts';
import { countLoss, exportAll, joinedParts, lossIssues, makeIssue, textSlices } from './common.ts';
import type { BiocAnnotation, BiocCollection, BiocDocument, BiocInfons, BiocPassage, BiocRelation, BiocSentence } from './bioc-model.ts';
import { biocCollectionHead, biocToDocuments, documentToBioc } from './bioc-model.ts';

/** An element as fast-xml-parser gives it: attributes as '@_name', children by name, text as '#text' (or the element a string). */
export type XmlNode = Record<string, unknown>;

/** Elements always given as arrays, however many there are. */
export const ARRAYS = new Set(['document', 'passage', 'sentence', 'annotation', 'relation', 'infon', 'location', 'node']);

const asObj = (v: unknown): XmlNode => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as XmlNode) : {});
const asArr = (v: unknown): XmlNode[] => (Array.isArray(v) ? v.map(asObj) : v === undefined ? [] : [asObj(v)]);
const textOf = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  const t = asObj(v)['#text'];
  return typeof t === 'string' ? t : '';
};
const attr = (n: XmlNode, name: string): string => textOf(n[`@_${name}`]);
const num = (v: unknown): number => {
  const s = textOf(v).trim();
  return /^\d+$/.test(s) ? Number(s) : NaN;
};

function infons(n: XmlNode): BiocInfons {
  const out: BiocInfons = {};
  for (const i of asArr(n.infon)) out[attr(i, 'key')] = textOf(i);
  return out;
}

function annotations(n: XmlNode): BiocAnnotation[] {
  return asArr(n.annotation).map((a) => ({
    id: attr(a, 'id'),
    infons: infons(a),
    locations: asArr(a.location).map((l) => ({ offset: num(l['@_offset']), length: num(l['@_length']) })),
    text: textOf(a.text),
  }));
}

function relations(n: XmlNode): BiocRelation[] {
  return asArr(n.relation).map((r) => ({
    id: attr(r, 'id'),
    infons: infons(r),
    nodes: asArr(r.node).map((x) => ({ refid: attr(x, 'refid'), role: attr(x, 'role') })),
  }));
}

function sentences(n: XmlNode): BiocSentence[] {
  return asArr(n.sentence).map((s) => ({
    offset: num(s.offset),
    infons: infons(s),
    text: textOf(s.text),
    annotations: annotations(s),
    relations: relations(s),
  }));
}

/** The parser giving elements as XmlNode (bioc-xml-stream.ts parses documents alone with it). */
export function biocXmlNodeParser(): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    trimValues: false,
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    htmlEntities: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    isArray: (name) => ARRAYS.has(name),
  });
}

const REMOVE_DOCTYPE = "remove the DOCTYPE's declarations (BioC files need none) and import it again";
/**
 * Why a DOCTYPE's entities cannot be read, or undefined: the XML reader skips an entity whose
 * value holds '&' (entities made of entities: the "billion laughs" pattern), which would leave
 * its references in the text as written.
 */
function doctypeProblem(xml: string): string | undefined {
  const subset = doctypeSubset(xml);
  if (!subset) return undefined;
  for (const m of subset.matchAll(/<!ENTITY\s+[^\s%]+\s+(["'])([^"']*)\1/g))
    if (m[2]?.includes('&')) return `its DOCTYPE declares entities made of other entities, which are not expanded (a "billion laughs" file?); ${REMOVE_DOCTYPE}`;
  return undefined;
}

/** Entity references, with the CDATA sections and comments (where `&` is plain text) to pass over. */
const REFERENCE_RE = /<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->|&([A-Za-z_:\u00C0-\uFFFF][\w.:\u00B7\u00C0-\uFFFF-]*);/g;
const MAX_NAMED = 5;

/** Counts the named entity references in `xml` (CDATA sections and comments passed over) into `counts`. */
export function countEntityReferences(xml: string, counts: Map<string, number>): void {
  for (const m of xml.matchAll(REFERENCE_RE)) if (m[1] !== undefined) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
}

/** The DOCTYPE's internal subset (its declarations, before `<collection`), or '' when none. */
function doctypeSubset(xml: string): string {
  return /<!DOCTYPE[^[>]*\[([\s\S]*?)\]\s*>/.exec(xml.slice(0, Math.max(0, xml.indexOf('<collection')) || xml.length))?.[1] ?? '';
}

/** Names the DOCTYPE's internal subset declares as entities. */
function declaredEntities(xml: string): Set<string> {
  return new Set([...doctypeSubset(xml).matchAll(/<!ENTITY\s+([^\s%]+)\s/g)].map((m) => m[1] ?? ''));
}

/**
 * A warning for the named entity references (`counts`, see countEntityReferences) the XML reader
 * leaves in the text as written: not XML's five, not an HTML entity the reader knows, not
 * `declared` in the DOCTYPE (`&foo;`, and `&eacute;` too). It names the entities, never the text.
 */
export function undefinedEntityIssue(counts: Map<string, number>, declared: Set<string>, file: string, parser: XMLParser): FormatIssue | undefined {
  const names = [...counts.keys()].filter((n) => !declared.has(n));
  if (names.length === 0) return undefined;
  // What the reader makes of each name: one parse for all of them; unknown ones come back as written.
  const probe = asObj(parser.parse(`<p>${names.map((n) => `<e>&${n};</e>`).join('')}</p>`) as unknown);
  const e = asObj(probe.p).e;
  const read: unknown[] = Array.isArray(e) ? e : [e];
  const unknown = names.filter((n, i) => textOf(read[i]) === `&${n};`);
  if (unknown.length === 0) return undefined;
  const refs = unknown.reduce((sum, n) => sum + (counts.get(n) ?? 0), 0);
  const listed = unknown.slice(0, MAX_NAMED).map((n) => `&${n};`).join(', ') + (unknown.length > MAX_NAMED ? ` and ${unknown.length - MAX_NAMED} more` : '');
  const times = `${refs.toLocaleString('en-US')} ${refs === 1 ? 'reference' : 'references'}`;
  return makeIssue(
    'warning',
    file,
    unknown.length === 1
      ? `undefined XML entity ${listed} (${times}) kept in the text as written; replace it with the character it stands for if that is meant`
      : `undefined XML entities ${listed} (${times}) kept in the text as written; replace them with the characters they stand for if that is meant`,
  );
}

/** What the XML reader's refusal means, without its words (they may quote the file). */
function xmlParseProblem(err: unknown): string {
  const why = err instanceof Error ? err.message : '';
  if (/External entities/i.test(why)) return `its DOCTYPE declares an external entity (SYSTEM or PUBLIC), which is never read; ${REMOVE_DOCTYPE}`;
  if (/Parameter entities/i.test(why)) return `its DOCTYPE declares parameter entities, which are not read; ${REMOVE_DOCTYPE}`;
  if (/Entity|Expan/i.test(why)) return `its DOCTYPE's entities expand beyond what is read (an entity-expansion attack?); ${REMOVE_DOCTYPE}`;
  if (/nested tags/i.test(why)) return 'elements nested more than 100 deep; not BioC XML';
  return 'malformed XML (a DOCTYPE or markup the XML reader does not accept)';
}

/** Parses BioC XML; syntax errors give one error issue with the line, and no documents. */
export function importBiocXml(xml: string, file: string): ImportResult {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    return { documents: [], issues: [makeIssue('error', file, `malformed XML (${valid.err.code}) at column ${valid.err.col}`, valid.err.line)] };
  }
  const refused = doctypeProblem(xml);
  if (refused !== undefined) return { documents: [], issues: [makeIssue('error', file, refused)] };
  let parsed: XmlNode;
  const parser = biocXmlNodeParser();
  try {
    parsed = asObj(parser.parse(xml) as unknown);
  } catch (err) {
    return { documents: [], issues: [makeIssue('error', file, xmlParseProblem(err))] };
  }
  // An empty <collection></collection> parses as '': a collection without documents.
  const root = asObj(parsed.collection);
  if (!('collection' in parsed)) {
    return { documents: [], issues: [makeIssue('error', file, 'not BioC XML: no <collection> element')] };
  }
  const issues: ImportResult['issues'] = [];
  const references = new Map<string, number>();
  countEntityReferences(xml, references);
  const undefinedEntities = undefinedEntityIssue(references, declaredEntities(xml), file, parser);
  if (undefinedEntities) issues.push(undefinedEntities);
  const col: BiocCollection = {
    source: textOf(root.source),
    date: textOf(root.date),
    key: textOf(root.key),
    infons: infons(root),
    documents: asArr(root.document).map((d, i) => biocDocumentOf(d, i, file, issues)),
  };
  const res = biocToDocuments(col, file);
  return { documents: res.documents, issues: [...issues, ...res.issues] };
}

/**
 * A <document> element as fast-xml-parser gives it (or bioc-xml-stream.ts builds it alike), the
 * `i`-th of its file (from 0): a passage without a valid offset is skipped, with an issue.
 */
export function biocDocumentOf(d: XmlNode, i: number, file: string, issues: FormatIssue[]): BiocDocument {
  return {
    id: textOf(d.id).trim() || String(i + 1),
    infons: infons(d),
    relations: relations(d),
    passages: asArr(d.passage).flatMap((p): BiocPassage[] => {
      const offset = num(p.offset);
      if (Number.isNaN(offset)) {
        issues.push(makeIssue('error', file, `document ${i + 1}: passage without a valid offset; skipped`));
        return [];
      }
      const passage: BiocPassage = { offset, infons: infons(p), sentences: sentences(p), annotations: annotations(p), relations: relations(p) };
      if (p.text !== undefined) passage.text = textOf(p.text);
      return [passage];
    }),
  };
}

/** XML 1.0 cannot hold C0 controls (except tab/LF/CR), U+FFFE/U+FFFF or lone surrogates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escaper(losses: LossCounts): (s: string) => string {
  return (s) =>
    s
      .replace(INVALID_XML, () => {
        countLoss(losses, 'characters not allowed in XML replaced by U+FFFD');
        return '\uFFFD';
      })
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/\r/g, '&#13;')
      .replace(/\t/g, '&#9;');
}

/** Exports documents as one BioC XML file. */
export function exportBiocXml(docs: readonly Document[], opts: { name?: string } = {}): ExportResult {
  return exportAll(biocXmlExporter(opts), docs);
}

/** The BioC XML exporter, one document at a time. */
export function biocXmlExporter(opts: { name?: string } = {}): StreamExporter {
  const name = opts.name ?? 'documents.bioc.xml';
  const losses: LossCounts = new Map();
  // Characters XML cannot hold are counted apart and reported last (as when built whole).
  const escapeLosses: LossCounts = new Map();
  const esc = escaper(escapeLosses);
  const el = (tag: string, v: string): string => `<${tag}>${esc(v)}</${tag}>`;
  // XML parsers read a raw line break in an attribute as a space (attribute-value normalisation).
  const escAttribute = (v: string): string => esc(v).replace(/\n/g, '&#10;');
  const inf = (i: BiocInfons): string =>
    Object.entries(i).map(([k, v]) => `<infon key="${escAttribute(k)}">${esc(v)}</infon>`).join('');
  const rel = (r: BiocRelation): string =>
    `<relation id="${escAttribute(r.id)}">${inf(r.infons)}${r.nodes.map((n) => `<node refid="${escAttribute(n.refid)}" role="${escAttribute(n.role)}"/>`).join('')}</relation>\n`;
  const start = (): string => {
    const col = biocCollectionHead();
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE collection SYSTEM "BioC.dtd">\n<collection>' +
      `${el('source', col.source)}${el('date', col.date)}${el('key', col.key)}${inf(col.infons)}\n`
    );
  };
  const annotation = (a: BiocAnnotation): string => {
    const locs = a.locations.map((l) => `<location offset="${l.offset}" length="${l.length}"/>`).join('');
    return `<annotation id="${escAttribute(a.id)}">${inf(a.infons)}${locs}${el('text', a.text)}</annotation>\n`;
  };
  // A document in parts: a passage's text escaped a slice at a time, annotations a few at a time.
  function* documentParts(d: BiocDocument): Generator<string> {
    let head = `<document>${el('id', d.id)}${inf(d.infons)}\n`;
    for (const p of d.passages) {
      yield `${head}<passage>${inf(p.infons)}${el('offset', String(p.offset))}<text>`;
      // A slice never ends inside a surrogate pair, so each escapes as it does within the whole.
      for (const slice of textSlices(p.text ?? '')) yield esc(slice);
      yield '</text>\n';
      yield* joinedParts(p.annotations, annotation);
      head = '</passage>\n';
    }
    yield head;
    yield* joinedParts(d.relations, rel);
    yield '</document>\n';
  }
  const add = (doc: Document): Iterable<string> => {
    const d = documentToBioc(doc, losses);
    // Reading trims <id> (pretty-printed files indent it).
    if (d.id !== d.id.trim()) countLoss(losses, 'document ids with spaces at either end read back without them');
    return documentParts(d);
  };
  const finish = (): { tail: string; issues: FormatIssue[] } => {
    for (const [reason, n] of escapeLosses) countLoss(losses, reason, n);
    return { tail: '</collection>\n', issues: lossIssues(losses, name) };
  };
  return { name, start, add, finish };
}
