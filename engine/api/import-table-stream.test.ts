// documents:import of large CoNLL, CSV/TSV and BioC XML and JSON files (real ChemProt, NCBI-disease and
// BC5CDR data): read a chunk at a time, as PubTator and JSON Lines are (progress in bytes,
// batches saved while the file is read), with the documents and issues of reading them whole.
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportBiocJson } from '../formats/bioc-json.ts';
import { exportBiocXml } from '../formats/bioc-xml.ts';
import { importPubtator } from '../formats/pubtator.ts';
import { importPath } from '../formats/registry.ts';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import type { Document } from '../formats/types.ts';
import type { ImportProgress } from './dto.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-table-stream-', { inSubfolder: true });
});
afterEach(() => t.close());

async function importStreamed(rel: string | { text: string }, name: string) {
  const path = join(t.dir, name);
  if (typeof rel === 'string') copyFileSync(join(DATA_DIR, rel), path);
  else writeFileSync(path, rel.text);
  const { id: projectId } = await t.call('projects:create', { name });
  const events: ImportProgress[] = [];
  t.engine.subscribe((event, payload) => {
    if (event === 'documents:import-progress') events.push(payload as ImportProgress);
  });
  const report = await t.call('documents:import', {
    projectId,
    path,
    containsPhi: false,
    importId: name,
  });
  const size = statSync(path).size;
  const reading = events.filter((p) => p.phase === 'reading' && p.bytesTotal === size);
  return { path, projectId, report, reading, size };
}

describe.skipIf(!HAS_DATA)('importing a large TSV or CoNLL file', () => {
  it('ChemProt training split (4 MB TSV): streamed, with the documents and warning of reading it whole', async () => {
    const { path, projectId, report, reading, size } = await importStreamed(
      're/chemprot/train.tsv',
      'chemprot.tsv',
    );
    expect(reading.filter((p) => p.bytesRead > 0 && p.bytesRead < size).length).toBeGreaterThan(2);
    expect(new Set(reading.map((p) => p.documentsSaved)).size).toBeGreaterThan(2);
    const whole = await importPath(path);
    expect(report).toMatchObject({ filesRead: 1, documentsAdded: whole.documents.length });
    expect(report.issues.map((i) => i.message)).toEqual(whole.issues.map((i) => i.message));
    const [dataset] = await t.call('datasets:list', { projectId });
    expect(dataset).toMatchObject({ name: 'chemprot', documentCount: 16_521 });
  });

  it('NCBI-disease training split (1.1 MB CoNLL): streamed, one document of 5,424 sentences', async () => {
    const { report, reading } = await importStreamed(
      'ner/ncbi-disease/train.tsv',
      'ncbi-train.tsv',
    );
    expect(reading.length).toBeGreaterThan(0);
    expect(report).toMatchObject({ filesRead: 1, documentsAdded: 1 });
    // Without -DOCSTART- lines, the file is one document: the report says so (and how to split it).
    expect(report.issues.map((i) => [i.severity, i.file, i.message.split(';')[0]])).toEqual([
      ['warning', 'ncbi-train.tsv', 'ncbi-train.tsv has no -DOCSTART- lines, so its 5,424 sentences were read as one document'],
    ]);
    expect(report.entitiesAdded).toBe(5134);
  });

  /** BC5CDR training and development abstracts, read once for both BioC tests (they only read them). */
  let cdr: Document[] | undefined;
  const cdrDocuments = (): Document[] =>
    (cdr ??= ['CDR_TrainingSet', 'CDR_DevelopmentSet'].flatMap(
      (n) => importPubtator(readFileSync(join(DATA_DIR, `documents/pubtator-bc5cdr/${n}.PubTator.txt`), 'utf8'), n).documents,
    ));

  for (const [format, name, render] of [
    ['XML', 'cdr.xml', exportBiocXml],
    ['JSON', 'cdr.json', exportBiocJson],
  ] as const) {
    it(`BC5CDR abstracts as BioC ${format}: streamed in two passes, bytes rising to the size once`, async () => {
      const docs = cdrDocuments();
      const text = render(docs).files[0]?.content ?? '';
      const { report, reading, size } = await importStreamed({ text }, name);
      const bytes = reading.map((p) => p.bytesRead);
      expect(bytes.slice(1).every((b, k) => b >= (bytes[k] ?? 0))).toBe(true);
      expect(bytes.filter((b) => b > 0 && b < size).length).toBeGreaterThan(2);
      expect(new Set(reading.map((p) => p.documentsSaved)).size).toBeGreaterThan(2);
      expect(report).toMatchObject({ filesRead: 1, documentsAdded: 1000, issues: [] });
      expect(report.entitiesAdded).toBe(docs.reduce((n, d) => n + d.entities.length, 0));
    });
  }
});
