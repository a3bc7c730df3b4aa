// A model's PHI record travels with its folder: importing a folder honours the status its
// lineage.json records (never lower than the user's answer) and keeps the file.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeFifo } from '../io/test-helpers.ts';
import type { PhiStatus } from '../store/models.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let outside: string;
let nerModel: string;
let t: TestEngine;
let dir: string;
const invoke: TestEngine['invoke'] = (name, args) => t.invoke(name, args);
const call: TestEngine['call'] = (name, args) => t.call(name, args);

/** A copy of the random NER model whose lineage.json records `status` (none: no file). */
function folderRecording(name: string, status?: PhiStatus): string {
  const folder = join(outside, name);
  mkdirSync(folder);
  for (const f of readdirSync(nerModel)) writeFileSync(join(folder, f), readFileSync(join(nerModel, f)));
  if (status) writeFileSync(join(folder, 'lineage.json'), JSON.stringify({ phi_status: status, statement: '', entries: [] }));
  return folder;
}

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'benchtop-lineage-'));
  nerModel = join(outside, 'ner-model');
  randomTaskModel(nerModel, { task: 'ner', maxLength: 64 }, ['O', 'B-Disease', 'I-Disease']);
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));
beforeEach(() => {
  t = openTestEngine('benchtop-lineage-data-');
  dir = t.dir;
});
afterEach(() => t.close());

describe('importing a model folder with a PHI record', () => {
  it('keeps the recorded status when the user answers less, and copies the record', async () => {
    const phi = await call('models:import-folder', { path: folderRecording('phi', 'trained-on-phi'), phiStatus: 'no-phi' });
    expect(phi.phiStatus).toBe('trained-on-phi');
    expect(JSON.parse(readFileSync(join(dir, phi.path, 'lineage.json'), 'utf8'))).toMatchObject({ phi_status: 'trained-on-phi' });
    const lineage = await call('models:get-lineage', { modelId: phi.id });
    expect(lineage.derivedPhiStatus).toBe('trained-on-phi');

    const student = await call('models:import-folder', { path: folderRecording('student', 'distilled-from-phi-teacher'), phiStatus: 'no-phi' });
    expect(student.phiStatus).toBe('distilled-from-phi-teacher');
    const record = await call('models:get-lineage', { modelId: student.id });
    expect(record.derivedPhiStatus).toBe('distilled-from-phi-teacher');
  });

  it('never lowers the user’s answer, and takes it as is without a record', async () => {
    const said = await call('models:import-folder', { path: folderRecording('said-phi', 'no-phi'), phiStatus: 'trained-on-phi' });
    expect(said.phiStatus).toBe('trained-on-phi');
    const unknown = await call('models:import-folder', { path: folderRecording('unrecorded'), phiStatus: 'unknown' });
    expect(unknown.phiStatus).toBe('unknown');
    // Its lineage says unknown too: the imported-folder row holds no PHI dataset, but that
    // vouches for nothing (it read 'no-phi').
    expect((await call('models:get-lineage', { modelId: unknown.id })).derivedPhiStatus).toBe('unknown');
    const bad = await call('models:import-folder', { path: folderRecording('record-unknown', 'unknown'), phiStatus: 'no-phi' });
    expect(bad.phiStatus).toBe('unknown');
  });

  it('takes a lineage.json it cannot read (cut short in a copy) as unknown, never as the user’s “no”', async () => {
    const folder = folderRecording('cut-short');
    writeFileSync(join(folder, 'lineage.json'), '{"phi_status": "trained-on-phi", "statem');
    const cut = await call('models:import-folder', { path: folder, phiStatus: 'no-phi' });
    expect(cut.phiStatus).toBe('unknown');
    expect((await call('models:list', {})).find((m) => m.id === cut.id)?.phiStatus).toBe('unknown');
    // It vouches for nothing either way: the user's worse answer stands.
    expect((await call('models:import-folder', { path: folder, phiStatus: 'trained-on-phi' })).phiStatus).toBe('trained-on-phi');
    // JSON, but no record (null, a bare status): unknown too, not an unexpected problem.
    for (const text of ['null', '"trained-on-phi"', '[]']) {
      writeFileSync(join(folder, 'lineage.json'), text);
      expect((await call('models:import-folder', { path: folder, phiStatus: 'no-phi' })).phiStatus, text).toBe('unknown');
    }
  });

  it('refuses a lineage.json that is a pipe and leaves nothing in models/', async () => {
    const folder = folderRecording('fifo-lineage');
    makeFifo(join(folder, 'lineage.json'));
    const reply = await invoke('models:import-folder', { path: folder, phiStatus: 'no-phi' });
    expect(reply.ok ? null : reply.error.code).toBe('unreadable-model');
    expect(readdirSync(join(dir, 'models')).filter((f) => !f.startsWith('default'))).toEqual([]);
  });
});
