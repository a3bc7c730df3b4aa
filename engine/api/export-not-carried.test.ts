// documents:export says what no format carries: a document's status that an import would not give
// back (reviewed; annotated without annotations; in progress), and model suggestions nobody
// reviewed, which are written like annotations and read back as annotations. Until 2026-11-24 both
// were lost unsaid: a project exported and imported again had every reviewed note "annotated".
// JSONL holds both since (export-review.test.ts); these are the formats that cannot.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
let dir: string;
beforeEach(() => {
  t = openTestEngine('benchtop-export-not-carried-');
  dir = mkdtempSync(join(tmpdir(), 'benchtop-export-not-carried-out-'));
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const DOCS = [
  { id: 'seen', text: 'Aspirin for fever.', entities: [{ id: 'T1', type: 'Drug', start: 0, end: 7, text: 'Aspirin' }], relations: [] },
  { id: 'no mentions', text: 'Nothing of note.', entities: [], relations: [] },
  { id: 'plain', text: 'Ibuprofen daily.', entities: [{ id: 'T1', type: 'Drug', start: 0, end: 9, text: 'Ibuprofen' }], relations: [] },
  { id: 'untouched', text: 'Seen in clinic.', entities: [], relations: [] },
];

async function project(): Promise<{ projectId: number; ids: Map<string, number> }> {
  const src = join(dir, 'src.jsonl');
  writeFileSync(src, DOCS.map((d) => JSON.stringify(d)).join('\n'));
  const { id: projectId } = await t.call('projects:create', { name: 'Statuses' });
  await t.call('documents:import', { projectId, path: src, containsPhi: false });
  const page = await t.call('documents:list', { projectId });
  return { projectId, ids: new Map(page.items.map((d) => [d.externalId, d.id])) };
}

const statuses = async (projectId: number): Promise<Record<string, string>> =>
  Object.fromEntries((await t.call('documents:list', { projectId })).items.map((d) => [d.externalId, d.status]));

describe('documents:export warns about what no format carries', () => {
  it('names the statuses an import would not give back, and they read back as it says', async () => {
    const { projectId, ids } = await project();
    await t.call('documents:set-status', { documentId: ids.get('seen') as number, status: 'reviewed' });
    await t.call('documents:set-status', { documentId: ids.get('no mentions') as number, status: 'annotated' });
    expect(await statuses(projectId)).toEqual({ seen: 'reviewed', 'no mentions': 'annotated', plain: 'annotated', untouched: 'new' });
    const out = join(dir, 'all.json');
    const report = await t.call('documents:export', { projectId, format: 'bioc-json', outPath: out });
    expect(report.issues).toEqual([
      {
        severity: 'warning',
        file: 'all.json',
        message: "2 documents' statuses not written (1 annotated without annotations, 1 reviewed): only JSONL holds a document's status; imported again, a document is annotated when it has annotations, else new",
      },
    ]);
    const { id: again } = await t.call('projects:create', { name: 'Again' });
    await t.call('documents:import', { projectId: again, path: out, containsPhi: false });
    expect(await statuses(again)).toEqual({ seen: 'annotated', 'no mentions': 'new', plain: 'annotated', untouched: 'new' });
  });

  it('counts unreviewed suggestions written with the annotations, which read back as annotations', async () => {
    const { projectId, ids } = await project();
    const documentId = ids.get('untouched') as number;
    const suggestion = { key: 'S1', type: 'Drug', spans: [{ start: 8, end: 14 }], text: 'clinic', origin: 'model' as const, status: 'suggested' as const };
    await t.call('annotations:apply-edits', { documentId, edits: [{ op: 'add-entity', entity: suggestion }] });
    const plain = await t.call('documents:export', { projectId, format: 'bioc-json', outPath: join(dir, 'plain.json') });
    expect(plain.issues).toEqual([]);
    const out = join(dir, 'with.json');
    const report = await t.call('documents:export', { projectId, format: 'bioc-json', outPath: out, includeSuggestions: true });
    expect(report.issues.map((i) => i.message)).toEqual([
      "1 document's status not written (1 new): only JSONL holds a document's status; imported again, a document is annotated when it has annotations, else new",
      '1 model suggestion that nobody reviewed written like annotations: imported again, they read back as annotations, not suggestions (JSONL keeps them suggestions)',
    ]);
  });
});
