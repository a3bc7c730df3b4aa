// An import killed part-way on a disk it had nearly filled (a 24 MB tmpfs mounted in a user
// namespace, where Linux allows them): the next open removes it with less free space than the
// import took. Removed in one statement, its log grew by as much as the import (secure_delete
// rewrites each freed page), so the workspace would not open ("the disk is full") until that
// much was freed; it is now removed a batch at a time, the log emptied after each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataset, listDatasets, listInterruptedImports } from './datasets.ts';
import { openWorkspace } from './db.ts';
import { insertDocuments } from './documents.ts';
import { createProject } from './projects.ts';
import { sql } from './sql.ts';
import { tempDirs } from './test-helpers.ts';

const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
const why = canMount ? '' : ' (skipped: needs Linux with unprivileged user namespaces, `unshare -rm`)';
const tmp = mkdtempSync(join(tmpdir(), 'benchtop-interrupted-disk-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const tempDir = tempDirs('benchtop-interrupted-twice-');

describe('a removal of an interrupted import cut short', () => {
  it('is finished at the next open and reported once, with the documents the import had saved', () => {
    const dir = tempDir();
    let ws = openWorkspace(dir);
    const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
    const ds = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true, isImporting: true });
    const docs = Array.from({ length: 700 }, (_, i) => ({ id: `n${i}`, text: `Note ${i}.`, entities: [], relations: [] }));
    insertDocuments(ws.write, docs, { projectId, datasetId: ds.id, format: 'text' });
    // What the first open had done when it was killed: the notice recorded, one batch removed.
    ws.write.run(sql`
      INSERT INTO interrupted_imports (project_id, dataset_name, documents_saved, started_at, removed_at)
      VALUES (${projectId}, 'notes', 700, ${ds.createdAt}, '2026-11-24T00:00:00.000Z')`);
    ws.write.run(sql`DELETE FROM documents WHERE id IN (SELECT id FROM documents WHERE dataset_id = ${ds.id} LIMIT 500)`);
    ws.close();
    ws = openWorkspace(dir);
    try {
      expect(listDatasets(ws.read, projectId)).toEqual([]);
      expect(ws.read.get(sql`SELECT count(*) AS n FROM documents`)).toEqual({ n: 0 });
      expect(listInterruptedImports(ws.read, projectId).map((n) => [n.datasetName, n.documentsSaved])).toEqual([['notes', 700]]);
    } finally {
      ws.close();
    }
  });
});

describe.runIf(canMount)(`an import killed part-way on a nearly full disk${why}`, () => {
  it('is removed at the next open with less room than it took, and reported', () => {
    const mnt = join(tmp, 'mnt');
    const script = join(tmp, 'reopen.mts');
    const store = (f: string): string => JSON.stringify(join(import.meta.dirname, f));
    writeFileSync(
      script,
      `import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { openWorkspace } from ${store('db.ts')};
import { createDataset, listDatasets, listInterruptedImports } from ${store('datasets.ts')};
import { insertDocuments } from ${store('documents.ts')};
import { createProject } from ${store('projects.ts')};
const data = '${mnt}/data';
let ws = openWorkspace(data);
const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
const kept = createDataset(ws.write, { projectId, name: 'kept', containsPhi: true }).id;
insertDocuments(ws.write, [{ id: 'k', text: 'Kept note.', entities: [], relations: [] }], { projectId, datasetId: kept, format: 'text' });
// What a crash mid-import leaves: a dataset still marked as importing, with 2,000 notes of 4 KB.
const ds = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true, isImporting: true }).id;
for (let b = 0; b < 4; b++) {
  const docs = Array.from({ length: 500 }, (_, i) => ({ id: 'n' + (b * 500 + i), text: ('note ' + (b * 500 + i) + ' ').repeat(400), entities: [], relations: [] }));
  insertDocuments(ws.write, docs, { projectId, datasetId: ds, format: 'text' });
}
ws.close();
// Leave 4 MB free: far less than the import took, more than a batch of its removal.
const fs = statfsSync('${mnt}');
const kb = Math.floor((fs.bavail * fs.bsize) / 1024) - 4 * 1024;
execFileSync('dd', ['if=/dev/zero', 'of=${mnt}/filler', 'bs=1k', 'count=' + kb], { stdio: 'ignore' });
try {
  ws = openWorkspace(data);
} catch (e) {
  console.log(JSON.stringify({ failed: e.message }));
  process.exit(0);
}
console.log(JSON.stringify({
  datasets: listDatasets(ws.read, projectId).map((d) => d.name),
  notices: listInterruptedImports(ws.read, projectId).map((n) => [n.datasetName, n.documentsSaved]),
  check: ws.read.get({ query: 'PRAGMA quick_check', params: [] }),
}));
ws.close();
`,
    );
    const mount = `mkdir -p '${mnt}' && mount -t tmpfs -o size=24m tmpfs '${mnt}'`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', `${mount} && '${process.execPath}' --import tsx '${script}'`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim())).toEqual({
      datasets: ['kept'],
      notices: [['notes', 2000]],
      check: { quick_check: 'ok' },
    });
  }, 120_000);
});
