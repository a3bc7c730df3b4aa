// documents:list with a search of symbols, on notes imported as a user would (JSON Lines): "%"
// lists the notes with a percent sign, "5%" the 5% ones, "°C" the temperature, "🩺" its note.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NOTES = [
  { id: 'gleason', text: "Small focus of adenocarcinoma, Gleason's 3 + 3 in approximately 5% of the tissue." },
  { id: 'fluids', text: 'IV fluids: D5W (5% dextrose in water); glucose 182 mg/dL this morning.' },
  { id: 'ef', text: 'Ejection fraction 25%, Cardiology follow-up.' },
  { id: 'fever', text: 'Febrile to 38.9 °C overnight 🩺; CXR clear.' },
];

let folder: string;
let t: TestEngine;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'benchtop-search-symbols-'));
  t = openTestEngine('benchtop-search-symbols-data-');
});
afterEach(async () => {
  await t.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('documents:list searching symbols', () => {
  it('lists the notes holding what was typed, symbols included', async () => {
    const projectId = (await t.call('projects:create', { name: 'Clinic' })).id;
    const file = join(folder, 'notes.jsonl');
    writeFileSync(file, `${NOTES.map((n) => JSON.stringify(n)).join('\n')}\n`);
    await t.call('documents:import', { projectId, path: file, containsPhi: false, datasetName: 'notes' });
    const listed = async (search: string): Promise<string[]> => {
      const page = await t.call('documents:list', { projectId, search, limit: 50 });
      expect(page.total).toBe(page.items.length);
      return page.items.map((d) => d.externalId).sort();
    };
    expect(await listed('%')).toEqual(['ef', 'fluids', 'gleason']);
    expect(await listed('5%')).toEqual(['fluids', 'gleason']);
    expect(await listed('°C')).toEqual(['fever']);
    expect(await listed('🩺')).toEqual(['fever']);
    expect(await listed('mg/dL')).toEqual(['fluids']);
    expect(await listed('+')).toEqual(['gleason']);
    expect(await listed('_')).toEqual([]);
  });
});
