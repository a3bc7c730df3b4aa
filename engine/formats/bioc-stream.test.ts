// Streaming large BioC XML and JSON files: the documents and issues are exactly those of reading
// the file whole (real BC5CDR abstracts exported as BioC, with CRLF, comments, CDATA, HTML
// entities, escapes, bad passages and annotations), a document at a time; malformed files, and
// files not plain to split (repeated keys, a DOCTYPE declaring entities), are left to whole
// reading (which says what is wrong).

import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportBiocJson } from './bioc-json.ts';
import { exportBiocXml } from './bioc-xml.ts';
import { importPubtator } from './pubtator.ts';
import { importPath } from './registry.ts';
import { STREAM_FROM_BYTES, streamDocuments } from './stream.ts';
import { DATA_DIR, HAS_DATA, streamAll } from './test-fixtures.ts';
import type { Document } from './types.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchtop-bioc-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `make`'s value, made on the first call (the tests only read it). */
function once<T>(make: () => T): () => T {
  let value: { is: T } | undefined;
  return () => (value ??= { is: make() }).is;
}

/** BC5CDR training and development abstracts. */
const cdr = once((): Document[] =>
  ['CDR_TrainingSet', 'CDR_DevelopmentSet'].flatMap(
    (name) => importPubtator(readFileSync(join(DATA_DIR, `documents/pubtator-bc5cdr/${name}.PubTator.txt`), 'utf8'), name).documents,
  ),
);

/** BC5CDR training and development abstracts as one BioC XML collection (about 5 MB). */
const cdrBioc = once((): string => exportBiocXml(cdr()).files[0]?.content ?? '');

/**
 * The first PART_DOCUMENTS of them (about 1.5 MB, still streamed in several chunks), for claims
 * that hold at any size: each streamed pass over the whole collection costs seconds.
 */
const PART_DOCUMENTS = 320;
const cdrPart = once((): string => exportBiocXml(cdr().slice(0, PART_DOCUMENTS)).files[0]?.content ?? '');
const cdrPartJson = once((): string => exportBiocJson(cdr().slice(0, PART_DOCUMENTS)).files[0]?.content ?? '');

async function expectSameAsWhole(name: string, text: string, format: 'bioc-xml' | 'bioc-json' = 'bioc-xml') {
  const path = join(dir, name);
  writeFileSync(path, text);
  const streamed = await streamAll(path, format);
  const whole = await importPath(path);
  expect(whole.documents.length).toBeGreaterThan(0);
  expect(streamed.issues).toEqual(whole.issues);
  expect(streamed.documents).toEqual(whole.documents);
  return streamed;
}

describe.skipIf(!HAS_DATA)('streaming a large BioC XML file', () => {
  it('gives what reading it whole gives, a chunk at a time', async () => {
    const xml = cdrBioc();
    expect(cdrPart().length, 'the part, too').toBeGreaterThan(STREAM_FROM_BYTES);
    expect(xml.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const streamed = await expectSameAsWhole('cdr.xml', xml);
    expect(streamed.documents).toHaveLength(1000);
    expect(streamed.documents.reduce((n, d) => n + d.entities.length, 0)).toBeGreaterThan(18_000);
    expect(streamed.pieces).toBeGreaterThan(4);
  });

  it('reads CRLF, comments, CDATA and bad passages and annotations as whole reading does', async () => {
    // Exports begin with <!DOCTYPE collection SYSTEM "BioC.dtd">, as BioC files do.
    let xml = cdrPart().replace('<collection>', '<!-- exported -->\n<collection>');
    // A third of the way in: a passage without an offset, an annotation beyond the text, CDATA in a text.
    const at = xml.indexOf('<document>', xml.length / 3);
    const n = xml.slice(0, at).split('<document>').length;
    xml = `${xml.slice(0, at)}<document><id>bad</id><passage><text>no offset</text></passage><passage><offset>0</offset><text><![CDATA[A <b>]]> &amp; &#13;text</text><annotation id="x"><infon key="type">Disease</infon><location offset="500" length="3"/><text>far</text></annotation></passage></document>\n${xml.slice(at)}`;
    const streamed = await expectSameAsWhole('bad.xml', xml.replace(/\n/g, '\r\n'));
    expect(streamed.issues?.map((i) => i.message)).toEqual([
      `document ${n}: passage without a valid offset; skipped`,
      'entity x: offsets outside the text; dropped',
    ]);
    expect(streamed.documents.find((d) => d.id === 'bad')?.text).toBe('A <b> & \rtext');
  });

  it('reads HTML entities, markup and comments inside text, and entities in other case as whole reading does', async () => {
    const xml = cdrPart();
    const odd = xml.replace('</text>', '&nbsp;&AMP;<i>x</i><!-- note --></text>').replace(/<infon key="type">Chemical<\/infon>/, '<infon key="type" note="a&amp;b">Chemical</infon>');
    const streamed = await expectSameAsWhole('odd.xml', odd);
    // &AMP; is no entity (names are case-sensitive): kept as written, and said, in both readings.
    expect(streamed.issues).toContainEqual({
      severity: 'warning',
      file: join(dir, 'odd.xml'),
      message: 'undefined XML entity &AMP; (1 reference) kept in the text as written; replace it with the character it stands for if that is meant',
    });
    // Streaming the plain file is the first test's claim: here its whole reading is enough.
    writeFileSync(join(dir, 'plain.xml'), xml);
    expect(streamed.documents[0]?.text).not.toBe((await importPath(join(dir, 'plain.xml'))).documents[0]?.text);
  });

  it('leaves malformed files, and files sax cannot split alike, to whole reading', async () => {
    const xml = cdrPart();
    const variants: [string, string][] = [
      ['malformed-end.xml', `${xml.slice(0, -20)}</oops>`],
      ['malformed-middle.xml', xml.replace('</passage>', '</pasage>')],
      ['repeated-attribute.xml', xml.replace('<infon key="type">', '<infon key="type" key="x">')],
      ['internal-subset.xml', xml.replace('<!DOCTYPE collection SYSTEM "BioC.dtd">', '<!DOCTYPE collection [<!ENTITY x "y">]>')],
      ['declaration-in-text.xml', xml.replace('</text>', '<!ATA[x]]></text>')],
      ['other-root.xml', xml.replace(/<collection>/, '<corpus><collection>').replace(/<\/collection>\s*$/, '</collection></corpus>')],
    ];
    for (const [name, text] of variants) {
      const path = join(dir, name);
      writeFileSync(path, text);
      expect(await streamAll(path, 'bioc-xml'), name).toMatchObject({ issues: null, pieces: 0 });
    }
  });

  it('says so when the file is cut short during its second pass, keeping what was read', async () => {
    const path = join(dir, 'cut.xml');
    writeFileSync(path, cdrPart());
    const size = statSync(path).size;
    let isCut = false;
    const reader = streamDocuments(path, 'bioc-xml', path, 'unused', (bytesRead) => {
      // Past half: the second pass has begun.
      if (!isCut && bytesRead > size * 0.6) truncateSync(path, Math.floor(size * 0.8));
      isCut ||= bytesRead > size * 0.6;
    });
    let documents = 0;
    let next = await reader.next();
    for (; !next.done; next = await reader.next()) documents += next.value.length;
    expect(documents).toBeGreaterThan(PART_DOCUMENTS / 10);
    expect(documents).toBeLessThan(PART_DOCUMENTS);
    expect(next.value).toEqual([
      {
        severity: 'error',
        file: path,
        message: `the file became shorter while it was read (${size.toLocaleString('en-US')} bytes, then ${Math.floor(size * 0.8).toLocaleString('en-US')}): documents from that point on are missing, and the last one read may be cut short; import it again`,
      },
    ]);
  });
});

describe.skipIf(!HAS_DATA)('streaming a large BioC JSON file', () => {
  it('gives what reading it whole gives, with escapes, bad passages and annotations, a chunk at a time', async () => {
    const docs = cdr();
    const col = JSON.parse(exportBiocJson(docs).files[0]?.content ?? '{}') as { documents: unknown[] };
    expect(col.documents).toHaveLength(1000);
    // A document with a passage without an offset, an annotation beyond its text, and escapes.
    col.documents.splice(400, 0, {
      id: 'bad',
      passages: [{ text: 'no offset' }, { offset: 0, text: 'Quoted "x" \\ and [brackets] {braces}', annotations: [{ id: 'x', infons: { type: 'Disease' }, locations: [{ offset: 500, length: 3 }], text: 'far' }] }],
    });
    const json = JSON.stringify(col, null, 1);
    expect(json.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const streamed = await expectSameAsWhole('cdr.json', json, 'bioc-json');
    expect(streamed.documents).toHaveLength(1001);
    expect(streamed.pieces).toBeGreaterThan(4);
    expect(streamed.issues?.map((i) => i.message)).toEqual(['document 401: passage without a valid offset; skipped', 'entity x: offsets outside the text; dropped']);
    // PubTator3's wrapper, and CRLF between values.
    const part = (JSON.parse(cdrPartJson()) as { documents: unknown[] }).documents;
    await expectSameAsWhole('pubtator3.json', JSON.stringify({ PubTator3: part }, null, 2).replace(/\n/g, '\r\n'), 'bioc-json');
  });

  it('leaves malformed files, and files whose documents are not plain to find, to whole reading', async () => {
    const json = cdrPartJson();
    const variants: [string, string][] = [
      ['malformed-end.json', json.slice(0, -3)],
      ['malformed-middle.json', json.replace('"passages":', '"passages"')],
      ['trailing-comma.json', json.replace(/\}\s*\]\s*\}\s*$/, '},]}')],
      ['repeated-key.json', json.replace(/^\{/, '{"documents": [],')],
      ['documents-not-array.json', json.replace(/^\{/, '{"PubTator3": [],').replace('"documents":', '"documents": {"x":').replace(/\]\s*\}\s*$/, ']}}')],
    ];
    for (const [name, text] of variants) {
      const path = join(dir, name);
      writeFileSync(path, text);
      expect(await streamAll(path, 'bioc-json'), name).toMatchObject({ issues: null, pieces: 0 });
    }
  });
});
