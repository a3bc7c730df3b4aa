// A deleted project's documents leave no readable trace in the workspace files: the text of a
// note marked as containing PHI is gone from workspace.sqlite and its write-ahead log once the
// purge is over (secure_delete zeroes freed pages; the purge then checkpoints and truncates the
// log), not merely unlinked and left in free pages for anyone with the file to read; and the
// space it took goes back to the disk.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../store/db.ts';
import { checkpointAndTruncateLog, createProject } from '../store/projects.ts';
import { sql } from '../store/sql.ts';
import { upgradeBackupPath } from '../store/upgrade.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const NAME = 'Quixmarchova';

/** How often the patient's name appears in the workspace's database files. */
function occurrences(dir: string): number {
  let n = 0;
  for (const f of ['workspace.sqlite', 'workspace.sqlite-wal']) {
    const file = join(dir, 'data', f);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const needle of [NAME, NAME.toLowerCase()])
      for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + 1)) n++;
  }
  return n;
}

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('purging a deleted project', () => {
  it('leaves none of its PHI text in the database file or its log', async () => {
    t = openTestEngine('benchtop-purge-phi-', { inSubfolder: true });
    const { id: projectId } = await t.call('projects:create', { name: 'Ward 7' });
    const notes = join(t.dir, 'notes.jsonl');
    const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: `n${i}`, text: `${NAME} Ezekiel, MRN 55${i}0912, admitted with chest pain; troponin raised.` }));
    writeFileSync(notes, `${lines.join('\n')}\n`);
    expect((await t.call('documents:import', { projectId, path: notes, containsPhi: true })).documentsAdded).toBe(40);
    expect((await t.call('documents:list', { projectId, search: NAME.toLowerCase() })).total).toBe(40);
    expect(occurrences(t.dir)).toBeGreaterThan(0);

    // A copy kept from an upgrade holds the notes too (upgradeSchema): it goes with the project.
    const backup = upgradeBackupPath(join(t.dir, 'data', 'workspace.sqlite'), 8);
    writeFileSync(backup, lines.join('\n'));
    await sleep(50);
    expect(existsSync(backup)).toBe(true); // kept while nothing is deleted

    await t.call('projects:delete', { projectId });
    // The purge runs in the background: wait (up to 10 s) for it to leave nothing behind.
    for (let waited = 0; occurrences(t.dir) > 0 && waited < 10_000; waited += 50) await sleep(50);
    expect(occurrences(t.dir)).toBe(0);
    expect(existsSync(backup)).toBe(false);
    await t.engine.close();
    expect(occurrences(t.dir)).toBe(0);
    // The pages it took went back to the disk (the file has no free pages left).
    const file = new Database(join(t.dir, 'data', 'workspace.sqlite'), { readonly: true });
    expect(file.pragma('freelist_count', { simple: true })).toBe(0);
    file.close();
  }, 30_000);

  it('empties the log without waiting for an export reading an older snapshot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'benchtop-purge-log-'));
    const ws = openWorkspace(dir);
    try {
      createProject(ws.write, { name: 'Before the export' });
      const snapshot = ws.snapshot(); // an export holds it while it writes
      createProject(ws.write, { name: 'During the export' });
      const t0 = Date.now();
      expect(checkpointAndTruncateLog(ws.write)).toBe(false);
      expect(Date.now() - t0).toBeLessThan(1000); // not the 5 s busy timeout
      snapshot.close();
      expect(checkpointAndTruncateLog(ws.write)).toBe(true);
      expect(statSync(join(dir, 'workspace.sqlite-wal')).size).toBe(0);
      // Other writers still wait for a busy workspace as before.
      expect(ws.read.get<{ timeout: number }>(sql`PRAGMA busy_timeout`)?.timeout).toBe(5000);
    } finally {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
