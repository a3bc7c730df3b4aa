// SQLite's temporary files hold document text: the VACUUM at a schema upgrade copies the whole
// workspace into one (13 MB of notes here), a large sort spills into them. They are made in
// the data folder, owner-only, not in the system's temp folder (/var/tmp or /tmp: shared by every
// account, often another volume, and what was written there stays on the disk once unlinked).
import { type FSWatcher, mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type Workspace, openWorkspace } from './db.ts';
import { sql } from './sql.ts';

let ws: Workspace | undefined;
let watcher: FSWatcher | undefined;
let dir = '';
afterEach(() => {
  watcher?.close();
  ws?.close();
  ws = undefined;
  rmSync(dir, { recursive: true, force: true });
});

// fs.watch sees a file made and unlinked at once on Linux (inotify); elsewhere it may not.
describe.runIf(process.platform === 'linux')('SQLite temporary files', () => {
  it('are made in the data folder: a VACUUM copies the notes there, not to the system temp folder', async () => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-temp-files-'));
    ws = openWorkspace(dir);
    ws.write.exec(sql`CREATE TABLE notes (text TEXT)`);
    const note = 'Quixmarchova Ezekiel, MRN 5520912, admitted with chest pain; troponin raised. '.repeat(40);
    ws.write.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
      INSERT INTO notes (text) SELECT ${note} || i FROM n`);
    const made: string[] = [];
    watcher = watch(dir, (_event, name) => {
      if (name?.startsWith('etilqs_') === true) made.push(name);
    });
    ws.write.exec(sql`VACUUM`);
    await sleep(100); // the watcher's events arrive on the next turns of the event loop
    expect(made.length).toBeGreaterThan(0);
  });
});
