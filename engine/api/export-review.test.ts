// A project exported as JSONL and imported into another comes back whole: each document's status
// (new, in progress, annotated, reviewed) and its model suggestions nobody reviewed, still
// suggestions (with their scores and models, out of training until accepted). Until 2026-11-24 a
// reviewed project read back unreviewed and its suggestions as annotations.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EntityRecord, RelationRecord } from './dto.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
let dir: string;
beforeEach(() => {
  t = openTestEngine('benchtop-export-review-');
  dir = mkdtempSync(join(tmpdir(), 'benchtop-export-review-out-'));
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const DOCS = [
  {
    id: 'checked',
    text: 'Aspirin treats fever and headache.',
    entities: [
      { id: 'T1', type: 'Drug', start: 0, end: 7 },
      { id: 'T2', type: 'Disease', start: 15, end: 20 },
    ],
    relations: [{ id: 'R1', type: 'treats', arg1: 'T1', arg2: 'T2' }],
  },
  { id: 'half done', text: 'Ibuprofen daily.', entities: [{ id: 'T1', type: 'Drug', start: 0, end: 9 }], relations: [] },
  { id: 'nothing found', text: 'Nothing of note.', entities: [], relations: [] },
  { id: 'untouched', text: 'Seen in clinic for cough.', entities: [], relations: [] },
];

async function importInto(name: string, path: string) {
  const { id: projectId } = await t.call('projects:create', { name });
  const report = await t.call('documents:import', { projectId, path, containsPhi: false });
  const page = await t.call('documents:list', { projectId });
  return { projectId, report, ids: new Map(page.items.map((d) => [d.externalId, d.id])) };
}

type Ann = Record<string, unknown>;

/** Each document's status and its annotations: suggestions as suggestions, rejected ones as rejected. */
async function contents(projectId: number): Promise<Record<string, { status: string; annotations: Ann[] }>> {
  const out: Record<string, { status: string; annotations: Ann[] }> = {};
  for (const d of (await t.call('documents:list', { projectId })).items) {
    const detail = await t.call('documents:get', { documentId: d.id });
    const shown = (a: EntityRecord | RelationRecord): Ann => {
      const { origin, originDetail, text: _t, ...rest } = a as EntityRecord & RelationRecord;
      // Accepted suggestions and imported annotations are alike annotations (final once imported);
      // a pending or rejected suggestion keeps the model that made it.
      if (a.status === 'suggested' || a.status === 'rejected') return { ...rest, origin, originDetail };
      return { ...rest, status: a.status === 'accepted' ? 'final' : a.status };
    };
    // By key: rows of a kind are stored group by group (annotations, suggestions, rejected ones).
    const byKey = <T extends { key: string }>(list: T[]): T[] => [...list].sort((a, b) => a.key.localeCompare(b.key));
    out[d.externalId] = { status: d.status, annotations: [...byKey(detail.entities), ...byKey(detail.relations)].map(shown) };
  }
  return out;
}

describe('a JSONL export carries statuses and suggestions back into a project', () => {
  it('gives back all four statuses, and pending suggestions as suggestions (accepted ones as annotations)', async () => {
    const src = join(dir, 'src.jsonl');
    writeFileSync(src, DOCS.map((d) => JSON.stringify(d)).join('\n'));
    const { projectId, ids } = await importInto('First', src);
    const id = (name: string): number => ids.get(name) as number;
    const suggest = (key: string, type: string, start: number, end: number, score: number) =>
      ({ op: 'add-entity' as const, entity: { key, type, spans: [{ start, end }], text: '', origin: 'model' as const, status: 'suggested' as const, originDetail: 'ner-v1', score } });
    await t.call('annotations:apply-edits', {
      documentId: id('checked'),
      edits: [
        suggest('T3', 'Disease', 25, 33, 0.91), // headache: accepted below
        suggest('T4', 'Drug', 8, 14, 0.12), // "treats": rejected below
        suggest('T5', 'Disease', 25, 33, 0.55), // headache again, left pending
        { op: 'add-relation', relation: { key: 'R2', type: 'treats', arg1: 'T1', arg2: 'T5', origin: 'model', status: 'suggested', originDetail: 're-v1', score: 0.7 } },
        { op: 'update-entity', key: 'T3', status: 'accepted' },
        { op: 'update-entity', key: 'T4', status: 'rejected' },
      ],
    });
    await t.call('annotations:apply-edits', { documentId: id('untouched'), edits: [suggest('T1', 'Disease', 19, 24, 0.8)] });
    await t.call('documents:set-status', { documentId: id('checked'), status: 'reviewed' });
    await t.call('documents:set-status', { documentId: id('half done'), status: 'in-progress' });
    await t.call('documents:set-status', { documentId: id('nothing found'), status: 'annotated' });
    const before = await contents(projectId);
    expect(Object.fromEntries(Object.entries(before).map(([k, v]) => [k, v.status]))).toEqual({ checked: 'reviewed', 'half done': 'in-progress', 'nothing found': 'annotated', untouched: 'new' });
    expect(before.checked?.annotations.filter((a) => a.status === 'suggested').map((a) => a.key)).toEqual(['T5', 'R2']);
    expect(before.checked?.annotations.filter((a) => a.status === 'rejected').map((a) => a.key)).toEqual(['T4']);

    const out = join(dir, 'all.jsonl');
    const exported = await t.call('documents:export', { projectId, format: 'jsonl', outPath: out, includeSuggestions: true });
    expect(exported.issues).toEqual([]); // JSONL holds both: nothing to warn about
    // Benchtop's own field, not one another tool's "status" could be.
    expect((JSON.parse(readFileSync(out, 'utf8').split('\n')[0] as string) as { benchtop?: unknown }).benchtop).toEqual({
      status: 'reviewed',
      suggestions: { entities: [{ id: 'T5', by: 'ner-v1' }], relations: [{ id: 'R2', by: 're-v1' }] },
      // Not among the entities: other tools reading the file do not take it for an annotation.
      rejected: { entities: [{ id: 'T4', type: 'Drug', start: 8, end: 14, text: 'treats', score: 0.12, by: 'ner-v1' }], relations: [] },
    });

    const again = await importInto('Second', out);
    expect(again.report.issues.map((i) => i.message)).toEqual([
      "3 documents' statuses (1 in-progress, 1 annotated without annotations, 1 reviewed) taken from the file, as Benchtop's JSONL export records them; 3 model suggestions read as suggestions, not annotations: review them in the editor (until accepted they are not trained on); 1 rejected model suggestion kept as rejected (not shown; a model's next run does not suggest them again)",
    ]);
    expect(await contents(again.projectId)).toEqual(before);
    // Suggestions stay out of what is counted (and trained on) as annotations.
    const summary = Object.fromEntries((await t.call('documents:list', { projectId: again.projectId })).items.map((d) => [d.externalId, [d.annotationCount, d.suggestionCount]]));
    expect(summary).toEqual({ checked: [3, 1], 'half done': [1, 0], 'nothing found': [0, 0], untouched: [0, 1] });
  });

  it('still warns for a format that cannot hold them, naming JSONL as the one that does', async () => {
    const src = join(dir, 'src.jsonl');
    writeFileSync(src, DOCS.map((d) => JSON.stringify(d)).join('\n'));
    const { projectId, ids } = await importInto('First', src);
    await t.call('documents:set-status', { documentId: ids.get('checked') as number, status: 'reviewed' });
    const report = await t.call('documents:export', { projectId, format: 'bioc-json', outPath: join(dir, 'all.json') });
    expect(report.issues.map((i) => i.message)).toEqual([
      "1 document's status not written (1 reviewed): only JSONL holds a document's status; imported again, a document is annotated when it has annotations, else new",
    ]);
  });
});
