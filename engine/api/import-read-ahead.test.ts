// documents:import of a folder of many small notes reads a few files at once (the time goes in
// waiting on the disk), never more than a handful, and still keeps documents in file order.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type * as Registry from '../formats/registry.ts';
import { openTestEngine } from './test-engine.ts';

/** Files being read right now, and the most at once. */
const reading = { now: 0, most: 0 };
vi.mock('../formats/registry.ts', async (original) => {
  const registry = await original<typeof Registry>();
  return {
    ...registry,
    importPath: async (...args: Parameters<typeof registry.importPath>) => {
      reading.most = Math.max(reading.most, ++reading.now);
      try {
        return await registry.importPath(...args);
      } finally {
        reading.now--;
      }
    },
  };
});

const folder = mkdtempSync(join(tmpdir(), 'benchtop-read-ahead-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('documents:import of a folder', () => {
  it('reads several files at once and keeps their documents in file order', async () => {
    const notes = join(folder, 'notes');
    mkdirSync(join(notes, 'b'), { recursive: true });
    const names: string[] = [];
    for (let i = 0; i < 40; i++) {
      const name = `${i < 20 ? '' : 'b/'}note-${String(i).padStart(2, '0')}`;
      writeFileSync(join(notes, `${name}.txt`), `Patient ${i} was seen today; blood pressure ${120 + i}/80.\n`);
      names.push(name);
    }
    const t = openTestEngine('benchtop-read-ahead-data-');
    try {
      const projectId = (await t.call('projects:create', { name: 'Notes' })).id;
      const report = await t.call('documents:import', { projectId, path: notes, containsPhi: false });
      expect(report).toMatchObject({ filesRead: 40, documentsAdded: 40, issues: [] });
      expect(reading.most).toBeGreaterThan(1);
      expect(reading.most).toBeLessThanOrEqual(8);
      const page = await t.call('documents:list', { projectId, limit: 100 });
      expect(page.items.map((d) => d.externalId)).toEqual([...names.slice(20), ...names.slice(0, 20)]);
      const [first] = page.items;
      expect((await t.call('documents:get', { documentId: first!.id })).text).toBe('Patient 20 was seen today; blood pressure 140/80.\n');
    } finally {
      await t.close();
    }
  });
});
