// documents:list read a page at a time (Select all on the Documents screen) while another window
// deletes and imports documents: pages after a document id miss and repeat none, where pages by
// offset skipped one for each document deleted before the page.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Documents from '../store/documents.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

/** How many times the matches were counted apart from listing them, since the last reset. */
const counted = { times: 0 };
vi.mock('../store/documents.ts', async (original) => {
  const documents = await original<typeof Documents>();
  return { ...documents, countDocuments: (...args: Parameters<typeof documents.countDocuments>) => (counted.times++, documents.countDocuments(...args)) };
});

let folder: string;
let t: TestEngine;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'benchtop-list-paging-'));
  t = openTestEngine('benchtop-list-paging-data-');
});
afterEach(async () => {
  await t.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Imports `n` notes named `${prefix}-${i}` (each holds "Straße" and its number) into a new dataset. */
async function importNotes(projectId: number, prefix: string, n: number): Promise<void> {
  const file = join(folder, `${prefix}.jsonl`);
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ id: `${prefix}-${i}`, text: `Note ${i}: lives in the Straße, no. ${i}.` }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  expect((await t.call('documents:import', { projectId, path: file, containsPhi: false, datasetName: prefix })).documentsAdded).toBe(n);
}

describe('documents:list pages after a document', () => {
  it('lists every document once while others are deleted and imported between pages', async () => {
    const projectId = (await t.call('projects:create', { name: 'Notes' })).id;
    await importNotes(projectId, 'first', 40);
    const before = (await t.call('documents:list', { projectId, limit: 1000 })).items.map((d) => d.id);
    for (const search of [undefined, 'strasse']) {
      const seen: number[] = [];
      let afterId: number | undefined;
      for (let round = 0; ; round++) {
        const page = await t.call('documents:list', { projectId, limit: 7, ...(search !== undefined && { search }), ...(afterId !== undefined && { afterId }) });
        expect(page.offset).toBe(0);
        seen.push(...page.items.map((d) => d.id));
        if (page.items.length < 7) break;
        afterId = page.items.at(-1)!.id;
        if (round === 1) {
          // Another window deletes two documents already listed and one not yet, and imports more.
          const gone = [seen[0]!, seen[3]!, before[30]!];
          await t.call('documents:delete', { projectId, documentIds: gone });
          await importNotes(projectId, `more-${search ?? 'all'}`, 5);
        }
      }
      const now = (await t.call('documents:list', { projectId, limit: 1000 })).items.map((d) => d.id);
      expect(new Set(seen).size).toBe(seen.length); // none repeated
      // Every document there throughout is listed (those deleted after being listed stay listed).
      expect(seen.filter((id) => now.includes(id))).toEqual(now);
    }
  });

  it('keeps the filters and the total of every match, and refuses an offset with it', async () => {
    const projectId = (await t.call('projects:create', { name: 'Notes' })).id;
    await importNotes(projectId, 'a', 12);
    await importNotes(projectId, 'b', 3);
    const datasets = await t.call('datasets:list', { projectId });
    const b = datasets.find((d) => d.name === 'b')!;
    const all = (await t.call('documents:list', { projectId, datasetId: b.id })).items.map((d) => d.id);
    const page = await t.call('documents:list', { projectId, datasetId: b.id, afterId: all[0]!, limit: 1 });
    expect([page.total, page.items.map((d) => d.id)]).toEqual([3, [all[1]]]);
    // The exact id is not put first: pages after an id are in id order.
    const searched = await t.call('documents:list', { projectId, search: 'a-1', afterId: 0, limit: 1000 });
    expect(searched.items.map((d) => d.externalId)).toEqual(['a-1', 'a-10', 'a-11']);
    expect(await t.invoke('documents:list', { projectId, afterId: all[0]!, offset: 5 })).toMatchObject({
      ok: false,
      error: { code: 'invalid', message: 'A page of documents starts at an offset or after a document, not both.' },
    });
  });
});

describe('documents:list totals', () => {
  it('counts the matches apart only when the page does not end the list, with the same totals', async () => {
    const projectId = (await t.call('projects:create', { name: 'Notes' })).id;
    await importNotes(projectId, 'a', 12);
    const cases = [
      { args: { search: 'strasse', limit: 50 }, total: 12, counts: 0 }, // one page: the end
      { args: { search: 'a-1', limit: 2 }, total: 3, counts: 1 }, // a-1 first, then a-10, a-11
      { args: { search: 'a-1', limit: 2, offset: 2 }, total: 3, counts: 0 }, // the last page
      { args: { search: 'a-1', limit: 2, offset: 1 }, total: 3, counts: 1 }, // full: more may follow
      { args: { search: 'strasse', limit: 5, offset: 40 }, total: 12, counts: 1 }, // past the end
      { args: { search: 'nothing-like-it', limit: 5 }, total: 0, counts: 0 },
      { args: { limit: 5, afterId: 0 }, total: 12, counts: 1 },
    ];
    for (const c of cases) {
      counted.times = 0;
      const page = await t.call('documents:list', { projectId, ...c.args });
      expect([page.total, counted.times], JSON.stringify(c.args)).toEqual([c.total, c.counts]);
    }
  });
});
