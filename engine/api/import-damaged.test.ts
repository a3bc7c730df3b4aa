// documents:import of damaged files (real BC5CDR abstracts): a NUL byte deep inside a file (past
// the head that binary detection looks at) leaves its document out with an error naming it, in a
// large file read a chunk at a time as in a small one read whole; the other documents are kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-damaged-', { inSubfolder: true });
});
afterEach(() => t.close());

/** `copies` of BC5CDR training, PMIDs made unique per copy; 0: its first 300 K characters. */
function pubtator(copies: number): string {
  const src = readFileSync(join(DATA_DIR, 'documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt'), 'utf8');
  if (copies === 0) return src.slice(0, src.indexOf('\n\n', 300_000) + 2);
  let out = '';
  for (let c = 0; c < copies; c++) out += src.replace(/^(\d+)([|\t])/gm, (_, id: string, sep: string) => `${id}c${c}${sep}`) + '\n';
  return out;
}

describe.skipIf(!HAS_DATA)('a file with a NUL byte deep inside', () => {
  it.each([
    ['large, streamed', 2],
    ['small, read whole', 0],
  ])('leaves out the document that holds it, saying so (%s)', async (_, copies) => {
    const { id: projectId } = await t.call('projects:create', { name: 'Damaged' });
    const text = pubtator(copies);
    // The first document whose title starts past 200 K characters (past binary detection's head).
    const at = text.indexOf('|t|', 200_000) + 10;
    const pmid = text.slice(text.lastIndexOf('\n', at) + 1, text.indexOf('|t|', 200_000));
    const path = join(t.dir, 'damaged.pubtator');
    writeFileSync(path, text.slice(0, at) + '\0' + text.slice(at));
    const report = await t.call('documents:import', { projectId, path, containsPhi: false });
    const list = await t.call('documents:list', { projectId, limit: 1000 });
    expect(list.items.map((d) => d.externalId)).not.toContain(pmid);
    if (copies > 0) expect(list.items.map((d) => d.externalId)).toContain(pmid.replace('c0', 'c1'));
    expect(report.issues).toContainEqual({
      severity: 'error',
      file: 'damaged.pubtator',
      message: `document ${pmid} contains NUL characters (U+0000), which text does not have: the file may be damaged there (a copy cut short?); skipped`,
    });
    expect(report.documentsAdded).toBe(list.total);
    expect(list.total).toBe(text.split('|t|').length - 2); // all documents but that one
  });
});

describe.skipIf(!HAS_DATA)('a large file with a zero-filled end (a copy cut short)', () => {
  it('says its last document is damaged, not too long', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Cut short' });
    const text = pubtator(1).slice(0, 900_000);
    const path = join(t.dir, 'cut.pubtator');
    writeFileSync(path, Buffer.concat([Buffer.from(text), Buffer.alloc(3_000_000)]));
    const report = await t.call('documents:import', { projectId, path, containsPhi: false });
    const last = text.slice(text.lastIndexOf('\n\n') + 2, text.indexOf('|', text.lastIndexOf('\n\n') + 2));
    expect(report.issues).toEqual([
      {
        severity: 'error',
        file: 'cut.pubtator',
        message: `document ${last} contains NUL characters (U+0000), which text does not have: the file may be damaged there (a copy cut short?); skipped`,
      },
    ]);
    expect(report.documentsAdded).toBe(text.split('|t|').length - 2);
  });
});

describe('a document id that is text', () => {
  it('leaves the document out without quoting its id, and keeps the others', async () => {
    // A record whose id field holds a note (fields shifted in a hand-made file): the id would be
    // shown in lists and quoted in issue messages.
    const { id: projectId } = await t.call('projects:create', { name: 'Shifted' });
    const note = 'Patient Jane Roe, 54, seen for follow-up of type 2 diabetes mellitus. '.repeat(4);
    const path = join(t.dir, 'notes.jsonl');
    const lines = [
      { id: 'n1', text: 'Seen for asthma.' },
      { id: note, text: 'Seen for hypertension.' },
      { id: 'n3', text: 'Seen for gout.' },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const report = await t.call('documents:import', { projectId, path, containsPhi: true });
    const list = await t.call('documents:list', { projectId, limit: 10 });
    expect(list.items.map((d) => d.externalId).sort()).toEqual(['n1', 'n3']);
    const issue = report.issues.find((i) => i.severity === 'error');
    expect(issue?.message).toMatch(/^a document's id has 280 characters, more than the 200 an id may have \(not shown/);
    expect(JSON.stringify(report)).not.toContain('Jane Roe');
  });
});
