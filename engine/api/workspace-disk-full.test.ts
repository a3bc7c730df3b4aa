// The workbench on a data folder whose disk is full (a 4 MB tmpfs mounted in a user namespace,
// where Linux allows them, filled with a filler file): an editor save is refused as
// 'workspace-unwritable' naming the database, saves nothing, and the same batch sent again on the
// same revision (what the editor's autosave does) is saved once space is freed; an import keeps
// nothing; the workspace then reopens whole. A training run that cannot write its checkpoint
// fails naming the file and saying the disk is full (it said "ENOSPC: no space left on device,
// write": the worker passed back only the message of Node's error, which names no file).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const NCBI_DEV = resolve(ROOT, '../shared/data/ner/ncbi-disease/devel.tsv');
const NCBI_ABSTRACTS = resolve(ROOT, '../shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
const why = canMount ? '' : ' (skipped: needs Linux with unprivileged user namespaces, `unshare -rm`)';
const tmp = mkdtempSync(join(tmpdir(), 'benchtop-ws-full-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.runIf(canMount)(`the workspace on a full disk${why}`, () => {
  it('refuses an edit and an import as unwritable, keeps nothing of them, and saves the same edit once there is room', () => {
    const mnt = join(tmp, 'mnt');
    const data = join(mnt, 'data');
    const script = join(tmp, 'full.mts');
    writeFileSync(
      script,
      `import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createEngine } from ${JSON.stringify(join(ROOT, 'engine/api/handlers.ts'))};
const Database = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('better-sqlite3');
const log = (step, value) => console.log(JSON.stringify({ step, value }));
let engine = createEngine({ dataDir: '${data}' });
const projectId = (await engine.invoke('projects:create', { name: 'Full', template: 'biomedical' })).value.id;
await engine.invoke('documents:import', { projectId, path: ${JSON.stringify(NCBI_DEV)}, containsPhi: false, datasetName: 'dev' });
const doc = (await engine.invoke('documents:list', { projectId, limit: 1 })).value.items[0];
// Fill the disk: dd stops at its end.
try { execFileSync('dd', ['if=/dev/zero', 'of=${mnt}/filler', 'bs=64k'], { stdio: 'ignore' }); } catch {}
const edits = [{ op: 'add-entity', entity: { key: 'T9000', type: 'Disease', spans: [{ start: 0, end: 3 }], text: 'x', origin: 'annotator', status: 'accepted' } }];
const args = { documentId: doc.id, baseRevision: doc.revision, edits };
log('edit', await engine.invoke('annotations:apply-edits', args));
const big = await engine.invoke('documents:import', { projectId, path: ${JSON.stringify(NCBI_DEV)}, containsPhi: false, datasetName: 'again' });
log('import', big.ok ? 'ok' : big.error.code);
const after = (await engine.invoke('documents:get', { documentId: doc.id })).value;
log('unchanged', { revision: after.summary.revision === doc.revision, keys: after.entities.filter((e) => e.key === 'T9000').length });
execFileSync('rm', ['${mnt}/filler']);
const again = await engine.invoke('annotations:apply-edits', args);
log('again', again.ok ? again.value.revision - doc.revision : again.error);
await engine.close();
const db = new Database('${data}/workspace.sqlite', { readonly: true });
log('check', db.pragma('integrity_check', { simple: true }));
log('datasets', db.prepare('SELECT name FROM datasets WHERE project_id = ? ORDER BY id').all(projectId).map((d) => d.name));
db.close();
engine = createEngine({ dataDir: '${data}' });
const reopened = (await engine.invoke('documents:get', { documentId: doc.id })).value;
log('kept', reopened.entities.filter((e) => e.key === 'T9000').map((e) => e.type));
await engine.close();
`,
    );
    const mount = `mkdir -p '${mnt}' && mount -t tmpfs -o size=4m tmpfs '${mnt}'`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', `${mount} && '${process.execPath}' --import tsx '${script}'`], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const steps = Object.fromEntries(r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { step: string; value: unknown }).map((s) => [s.step, s.value]));
    expect(steps).toEqual({
      edit: {
        ok: false,
        error: {
          code: 'workspace-unwritable',
          message: `${data}/workspace.sqlite could not be written, so nothing of this change was saved: the disk is full; free some space, then try again.`,
        },
      },
      import: 'workspace-unwritable',
      unchanged: { revision: true, keys: 0 },
      again: 1,
      check: 'ok',
      datasets: ['dev'],
      kept: ['Disease'],
    });
  }, 120_000);

  it('fails a training run that cannot write its checkpoint, naming the file and saying the disk is full', () => {
    const mnt = join(tmp, 'mnt-train');
    const script = join(tmp, 'train.mts');
    writeFileSync(
      script,
      `import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { createEngine } from ${JSON.stringify(join(ROOT, 'engine/api/handlers.ts'))};
const engine = createEngine({ dataDir: '${mnt}/data' });
const projectId = (await engine.invoke('projects:create', { name: 'Full', template: 'biomedical' })).value.id;
const imported = (await engine.invoke('documents:import', { projectId, path: ${JSON.stringify(NCBI_ABSTRACTS)}, containsPhi: false })).value;
// Leave 3 MB: room for the run's document snapshot, not for a checkpoint of the 18 MB model.
const fs = statfsSync('${mnt}');
const kb = Math.floor((fs.bavail * fs.bsize) / 1024) - 3 * 1024;
execFileSync('dd', ['if=/dev/zero', 'of=${mnt}/filler', 'bs=1k', 'count=' + kb], { stdio: 'ignore' });
const finished = new Promise((resolve) => engine.subscribe((name, payload) => { if (name === 'train:finished') resolve(payload); }));
const started = await engine.invoke('train:start', { projectId, task: 'ner', datasetIds: [imported.datasetId], baseModelId: 'shipped:default-student', maxSteps: 2 });
if (!started.ok) throw new Error(started.error.message);
const done = await finished;
console.log(JSON.stringify({ status: done.status, error: done.error }));
await engine.close();
`,
    );
    const mount = `mkdir -p '${mnt}' && mount -t tmpfs -o size=40m tmpfs '${mnt}'`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', `${mount} && '${process.execPath}' --import tsx '${script}'`], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const done = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { status: string; error: string };
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(new RegExp(`^${mnt}/data/runs/[-0-9a-f]+/out/checkpoint/[^:]*: the disk is full; free some space and run again$`));
  }, 180_000);
});
