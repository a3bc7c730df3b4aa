// BioC XML and JSON: a hand-written collection (passages, discontinuous annotations, node and
// concept relations), malformed input, exact text (CR, tab, emoji) and PubTator round trips.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportBiocJson, importBiocJson } from './bioc-json.ts';
import { exportBiocXml, importBiocXml } from './bioc-xml.ts';
import { importPubtator } from './pubtator.ts';
import { DATA_DIR, HAS_DATA } from './test-fixtures.ts';
import type { Document } from './types.ts';

const TITLE = 'Lidocaine-induced cardiac asystole.';
const ABSTRACT = 'A bolus of lidocaine caused asystole &amp; bradycardia.';
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE collection SYSTEM "BioC.dtd">
<collection><source>test</source><date>20240101</date><key>k</key>
<document><id>354896</id><infon key="journal">J Test</infon>
<passage><infon key="type">title</infon><offset>0</offset><text>${TITLE}</text>
<annotation id="0"><infon key="type">Chemical</infon><infon key="MESH">D008012</infon><location offset="0" length="9"/><text>Lidocaine</text></annotation>
<annotation id="1"><infon key="type">Disease</infon><infon key="MESH">D006323</infon><location offset="18" length="7"/><location offset="26" length="8"/><text>cardiac asystole</text></annotation>
</passage>
<passage><infon key="type">abstract</infon><offset>36</offset><text>${ABSTRACT}</text>
<annotation id="2"><infon key="type">Chemical</infon><infon key="identifier">D008012</infon><location offset="47" length="9"/><text>lidocaine</text></annotation>
<annotation id="3"><infon key="type">Disease</infon><location offset="900" length="3"/><text>bad</text></annotation>
</passage>
<relation id="R0"><infon key="relation">CID</infon><infon key="Chemical">D008012</infon><infon key="Disease">D006323</infon></relation>
<relation id="R1"><infon key="type">causes</infon><node refid="0" role="Chemical"/><node refid="1" role="Disease"/></relation>
<relation id="R2"><infon key="type">causes</infon><node refid="0" role="Chemical"/><node refid="42" role="Disease"/></relation>
</document>
</collection>
`;

describe('BioC XML import', () => {
  const { documents, issues } = importBiocXml(XML, 'c.xml');
  const doc = documents[0] as Document;

  it('lays passages out at their offsets', () => {
    expect(documents).toHaveLength(1);
    expect(doc.id).toBe('354896');
    expect(doc.text).toBe(`${TITLE}\n${ABSTRACT.replace('&amp;', '&')}`);
    expect(doc.passages).toEqual([
      { type: 'title', start: 0, end: 35 },
      { type: 'abstract', start: 36, end: doc.text.length },
    ]);
    expect(doc.metadata).toEqual({ journal: 'J Test' });
  });

  it('reads annotations, discontinuous locations and both relation styles', () => {
    expect(doc.entities.map((e) => [e.id, e.type, e.text, e.normIds])).toEqual([
      ['0', 'Chemical', 'Lidocaine', ['D008012']],
      ['1', 'Disease', 'cardiac asystole', ['D006323']],
      ['2', 'Chemical', 'lidocaine', ['D008012']],
    ]);
    expect(doc.entities[1]?.spans).toEqual([{ start: 18, end: 25 }, { start: 26, end: 34 }]);
    expect(doc.relations).toEqual([
      { id: 'R0', type: 'CID', arg1: 'D008012', arg2: 'D006323', byConcept: true },
      { id: 'R1', type: 'causes', arg1: '0', arg2: '1' },
    ]);
  });

  it('reports the bad annotation and the unknown node id, keeping the rest', () => {
    expect(issues.map((i) => [i.severity, i.message])).toEqual([
      ['error', 'entity 3: offsets outside the text; dropped'],
      // Once, though two relations have such roles.
      ['warning', 'relation roles other than Arg1/Arg2 (such as "Chemical") are read in the order the nodes are listed; exports write Arg1/Arg2'],
      ['error', 'document 354896: relation R2: unknown argument id 42; dropped'],
    ]);
  });

  it('round-trips through XML and JSON exports', () => {
    for (const [exp, imp] of [[exportBiocXml, importBiocXml], [exportBiocJson, importBiocJson]] as const) {
      const out = exp([doc]);
      expect(out.issues).toEqual([]);
      const again = imp(out.files[0]?.content ?? '', 'again');
      expect(again.issues).toEqual([]);
      expect(again.documents).toEqual([doc]);
    }
  });
});

describe('BioC exact text and malformed input', () => {
  const tricky: Document = {
    id: 'n1',
    text: 'Line one\r\n\tTabbed 😀 aspirin <b> & "q"\r\n',
    entities: [
      { id: 'T1', type: 'Chemical', spans: [{ start: 21, end: 28 }], text: 'aspirin', normIds: ['D001241', 'C000'], score: 0.5, attributes: { neg: 'no' } },
      { id: 'T2', type: 'Mix', spans: [{ start: 0, end: 4 }, { start: 11, end: 17 }], text: 'Line Tabbed' },
    ],
    relations: [{ id: 'R1', type: 'rel', arg1: 'T1', arg2: 'T2', score: 0.25 }],
    metadata: { note: 'a & b' },
  };

  it('keeps CR, tab, astral characters, scores and attributes in XML and JSON', () => {
    const expected = { ...tricky, passages: [{ type: 'text', start: 0, end: tricky.text.length }] };
    const xml = exportBiocXml([tricky]).files[0]?.content ?? '';
    expect(xml).toContain('&#13;');
    expect(importBiocXml(xml, 'x').documents).toEqual([expected]);
    const json = exportBiocJson([tricky]).files[0]?.content ?? '';
    expect(importBiocJson(json, 'j').documents).toEqual([expected]);
  });

  it('replaces characters XML cannot hold, with a warning', () => {
    const doc: Document = { id: 'c', text: 'bad\u0001char', entities: [], relations: [] };
    const out = exportBiocXml([doc]);
    expect(out.issues.map((i) => i.message)).toEqual(['1 character not allowed in XML replaced by U+FFFD']);
    expect(importBiocXml(out.files[0]?.content ?? '', 'x').documents[0]?.text).toBe('bad\uFFFDchar');
  });

  it('says when normalised ids hold , ; or | (read back split) and, in XML, when ids have spaces at their ends (read back trimmed)', () => {
    const doc: Document = {
      id: ' n1 ',
      text: 'Aspirin',
      entities: [{ id: 'T1', type: 'Drug', spans: [{ start: 0, end: 7 }], text: 'Aspirin', normIds: ['D001241;old'] }],
      relations: [],
    };
    const ids = '1 entity had normalised ids holding , ; or | (read back split there)';
    const xml = exportBiocXml([doc]);
    expect(xml.issues.map((i) => i.message)).toEqual([ids, '1 document id with spaces at either end read back without it']);
    expect(importBiocXml(xml.files[0]?.content ?? '', 'x').documents.map((d) => [d.id, d.entities[0]?.normIds])).toEqual([['n1', ['D001241', 'old']]]);
    const json = exportBiocJson([doc]);
    expect(json.issues.map((i) => i.message)).toEqual([ids]);
    expect(importBiocJson(json.files[0]?.content ?? '', 'j').documents[0]?.id).toBe(' n1 ');
  });

  it('writes line breaks in attributes (ids, infon keys) as &#10;, which every XML parser reads back as such', () => {
    const doc: Document = {
      id: 'd',
      text: 'Aspirin',
      entities: [{ id: 'a\nb', type: 'Drug', spans: [{ start: 0, end: 7 }], text: 'Aspirin' }],
      relations: [{ id: 'r\n1', type: 'same', arg1: 'a\nb', arg2: 'a\nb' }],
      metadata: { 'two\nlines': 'v' },
    };
    const xml = exportBiocXml([doc]).files[0]?.content ?? '';
    // Raw line breaks only between elements and in element text.
    expect([...xml.matchAll(/="[^"]*"/g)].filter((m) => m[0].includes('\n'))).toEqual([]);
    expect(importBiocXml(xml, 'x').documents[0]).toEqual({ ...doc, passages: [{ type: 'text', start: 0, end: 7 }] });
  });

  it('reports XML syntax errors with their line', () => {
    const res = importBiocXml('<collection>\n<document>\n<id>1</id>\n</collection>\n', 'broken.xml');
    expect(res.documents).toEqual([]);
    expect(res.issues).toHaveLength(1);
    expect(res.issues[0]).toMatchObject({ severity: 'error', file: 'broken.xml', line: 4 });
  });

  it('reports JSON syntax errors and non-BioC JSON without quoting content', () => {
    const res = importBiocJson('{"documents": [\n{"id": "1", "passages": [}\n]}', 'broken.json');
    expect(res.issues).toHaveLength(1);
    expect(res.issues[0]).toMatchObject({ severity: 'error', message: 'malformed JSON' });
    expect(importBiocJson('{"foo": 1}', 'x.json').issues[0]?.message).toBe('not BioC JSON: no "documents" array');
  });

  it('skips a passage without offset and keeps the others', () => {
    const json = JSON.stringify({
      documents: [{ id: 'd', passages: [{ text: 'lost' }, { offset: 0, text: 'Kept text', annotations: [{ id: 'a', infons: { type: 'X' }, locations: [{ offset: 0, length: 4 }], text: 'Kept' }] }] }],
    });
    const res = importBiocJson(json, 'p.json');
    expect(res.issues.map((i) => i.message)).toEqual(['document 1: passage without a valid offset; skipped']);
    expect(res.documents[0]?.entities[0]?.text).toBe('Kept');
  });
});

describe('BioC passages after astral characters', () => {
  // Offsets count code points: '𝛼' is one there but two UTF-16 units.
  const t1 = 'Role of 𝛼-synuclein.';
  const t2 = 'The 𝛼-synuclein gene.';
  const at = t1.length; // code points of t1 plus the '\n' gap (one unit more than its code points)
  const xml = `<collection><source/><date/><key/><document><id>1</id>
<passage><offset>0</offset><text>${t1}</text><annotation id="a"><infon key="type">Gene</infon><location offset="8" length="11"/><text>𝛼-synuclein</text></annotation></passage>
<passage><offset>${at}</offset><text>${t2}</text><annotation id="b"><infon key="type">Gene</infon><location offset="${at + 4}" length="11"/><text>𝛼-synuclein</text></annotation></passage>
</document></collection>`;

  it('lays the next passage out at its code-point offset (it was joined on, and its entities shifted)', () => {
    const res = importBiocXml(xml, 'astral.xml');
    expect(res.issues).toEqual([]);
    const doc = res.documents[0] as Document;
    expect(doc.text).toBe(`${t1}\n${t2}`);
    expect(doc.entities.map((e) => e.text)).toEqual(['𝛼-synuclein', '𝛼-synuclein']);
    expect(doc.passages).toEqual([
      { type: 'passage', start: 0, end: t1.length },
      { type: 'passage', start: t1.length + 1, end: doc.text.length },
    ]);
  });

  it('round-trips several passages with astral characters through XML and JSON', () => {
    const doc = importBiocXml(xml, 'astral.xml').documents[0] as Document;
    const title = { type: 'title', start: 0, end: 5 + t1.length };
    const abstract = { type: 'abstract', start: 6 + t1.length, end: 5 + doc.text.length };
    const twice: Document = { ...doc, id: '2', text: `😀😀 ${doc.text}`, entities: [], passages: [title, abstract] };
    for (const [exp, imp] of [[exportBiocXml, importBiocXml], [exportBiocJson, importBiocJson]] as const) {
      const again = imp(exp([doc, twice]).files[0]?.content ?? '', 'again');
      expect(again.issues).toEqual([]);
      expect(again.documents).toEqual([doc, twice]);
    }
  });
});

describe('BioC relation direction', () => {
  const xml = (nodes: string): string => `<collection><source/><date/><key/><document><id>1</id>
<passage><offset>0</offset><text>aspirin causes ulcers</text>
<annotation id="c"><infon key="type">Chemical</infon><location offset="0" length="7"/><text>aspirin</text></annotation>
<annotation id="d"><infon key="type">Disease</infon><location offset="15" length="6"/><text>ulcers</text></annotation>
</passage><relation id="r"><infon key="type">CID</infon>${nodes}</relation></document></collection>`;
  const relation = (nodes: string) => importBiocXml(xml(nodes), 'r.xml').documents[0]?.relations[0];

  it('takes arg1/arg2 from Arg1/Arg2 roles, not from node order (listed Arg2 first, it was reversed)', () => {
    expect(relation('<node refid="d" role="Arg2"/><node refid="c" role="Arg1"/>')).toMatchObject({ arg1: 'c', arg2: 'd' });
    expect(relation('<node refid="d" role="argument 2"/><node refid="c" role="argument 1"/>')).toMatchObject({ arg1: 'c', arg2: 'd' });
    expect(relation('<node refid="c" role="Arg1"/><node refid="d" role="Arg2"/>')).toMatchObject({ arg1: 'c', arg2: 'd' });
  });

  it('keeps node order for other roles', () => {
    expect(relation('<node refid="d" role="Disease"/><node refid="c" role="Chemical"/>')).toMatchObject({ arg1: 'd', arg2: 'c' });
  });
});

describe.skipIf(!HAS_DATA)('BioC round trip of BC5CDR', () => {
  it('PubTator → BioC XML / JSON → import is lossless', () => {
    const rel = 'documents/pubtator-bc5cdr/CDR_DevelopmentSet.PubTator.txt';
    const docs = importPubtator(readFileSync(join(DATA_DIR, rel), 'utf8'), rel).documents;
    for (const [exp, imp] of [[exportBiocXml, importBiocXml], [exportBiocJson, importBiocJson]] as const) {
      const out = exp(docs);
      expect(out.issues).toEqual([]);
      const again = imp(out.files[0]?.content ?? '', 'again');
      expect(again.issues).toEqual([]);
      expect(again.documents).toEqual(docs);
    }
  });
});

describe('BioC XML with a hostile DOCTYPE or shape', () => {
  const body = (text: string): string =>
    `<collection><source>x</source><document><id>1</id><passage><offset>0</offset><text>${text}</text></passage></document></collection>`;
  const refusal = (xml: string): string[] => {
    const res = importBiocXml(xml, 'hostile.xml');
    expect(res.documents).toEqual([]);
    return res.issues.map((i) => `${i.severity}: ${i.message}`);
  };
  const removeIt = "remove the DOCTYPE's declarations (BioC files need none) and import it again";

  it('names an external entity (never read) instead of "could not parse file (Error)"', () => {
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE collection [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n${body('Note &x; end')}`;
    expect(refusal(xml)).toEqual([`error: its DOCTYPE declares an external entity (SYSTEM or PUBLIC), which is never read; ${removeIt}`]);
  });

  it('refuses entities made of entities (they were skipped, leaving "&g;" in the text as written)', () => {
    const levels = ['<!ENTITY a "aaaaaaaaaa">', ...'bcdefg'.split('').map((e, i) => `<!ENTITY ${e} "${`&${'abcdef'[i]};`.repeat(10)}">`)];
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE collection [\n${levels.join('\n')}\n]>\n${body('&g;')}`;
    expect(refusal(xml)).toEqual([`error: its DOCTYPE declares entities made of other entities, which are not expanded (a "billion laughs" file?); ${removeIt}`]);
  });

  it('names an entity expanding past the limit, and nesting too deep, instead of "could not parse file (Error)"', () => {
    const wide = `<!DOCTYPE collection [<!ENTITY a "${'x'.repeat(9_000)}">]>\n${body('&a;'.repeat(30))}`;
    expect(refusal(wide)).toEqual([`error: its DOCTYPE's entities expand beyond what is read (an entity-expansion attack?); ${removeIt}`]);
    const deep = body(`Note${'<i>'.repeat(5_000)}${'</i>'.repeat(5_000)}`);
    expect(refusal(deep)).toEqual(['error: elements nested more than 100 deep; not BioC XML']);
  });

  it('still expands a plain internal entity, offsets counted on the expanded text', () => {
    const xml = `<!DOCTYPE collection [<!ENTITY h "heart">]>\n${body('&h; attack')}`.replace(
      '</passage>',
      '<annotation id="1"><infon key="type">Disease</infon><location offset="0" length="12"/><text>heart attack</text></annotation></passage>',
    );
    const res = importBiocXml(xml, 'plain.xml');
    expect(res.issues).toEqual([]);
    expect(res.documents[0]?.text).toBe('heart attack');
    expect(res.documents[0]?.entities.map((e) => e.text)).toEqual(['heart attack']);
  });

  it('warns of undefined entities, naming them (not the text), and keeps them in the text as written', () => {
    // &amp;bar; is an escaped '&bar;', CDATA holds plain text, &nbsp; and &copy; are known.
    const text = 'Dose &foo; daily&nbsp;&copy; &eacute;t&eacute; &amp;bar; &foo; <![CDATA[&cd;]]>';
    const res = importBiocXml(body(text).replace('<offset>', '<infon key="&foo;">x</infon><offset>'), 'notes.xml');
    expect(res.documents[0]?.text).toBe('Dose &foo; daily\u00a0\u00a9 &eacute;t&eacute; &bar; &foo; &cd;');
    expect(res.issues).toEqual([
      {
        severity: 'warning',
        file: 'notes.xml',
        message: 'undefined XML entities &foo;, &eacute; (5 references) kept in the text as written; replace them with the characters they stand for if that is meant',
      },
    ]);
    expect(importBiocXml(body('Dose &foo; daily'), 'one.xml').issues.map((i) => i.message)).toEqual([
      'undefined XML entity &foo; (1 reference) kept in the text as written; replace it with the character it stands for if that is meant',
    ]);
  });
});
