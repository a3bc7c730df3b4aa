// Tests for training runs, their metrics, files, and recovery of runs left 'running' by a
// killed process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, openWorkspace, queryPlan, traceQueries } from './db.ts';
import { deleteFileRecord, getFile, hashFile, listFiles, registerFile } from './files.ts';
import { appendMetrics, listEpochMetrics, listMetricSeries } from './metrics.ts';
import { createProject } from './projects.ts';
import { INTERRUPTED_MESSAGE, createRun, deleteRun, getRun, listRuns, updateRunStatus } from './runs.ts';
import { sql } from './sql.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('runs', () => {
  it('moves through the lifecycle and refuses illegal transitions', () => {
    const ws = openMemory();
    const projectId = createProject(ws.write, { name: 'p' }).id;
    const run = createRun(ws.write, { projectId, task: 'ner', config: { epochs: 3, lr: 5e-5, labels: ['O', 'B-X'] } });
    expect(run).toMatchObject({ status: 'queued', config: { epochs: 3, lr: 5e-5, labels: ['O', 'B-X'] } });
    expect(run.startedAt).toBeUndefined();
    const running = updateRunStatus(ws.write, run.id, 'running');
    expect(running.startedAt).toBeDefined();
    const done = updateRunStatus(ws.write, run.id, 'completed', {
      checkpointPath: `runs/${run.id}/last.ckpt`,
      stopReason: 'time-limit',
    });
    expect(done).toMatchObject({ status: 'completed', checkpointPath: `runs/${run.id}/last.ckpt`, stopReason: 'time-limit' });
    expect(done.finishedAt).toBeDefined();
    expect(() => updateRunStatus(ws.write, run.id, 'running')).toThrow(/cannot go from completed to running/);
    const failed = createRun(ws.write, { projectId, task: 're', config: {} });
    updateRunStatus(ws.write, failed.id, 'running');
    // A stop reason belongs to completed runs only.
    const failedRun = updateRunStatus(ws.write, failed.id, 'failed', { error: 'out of memory', stopReason: 'completed' });
    expect(failedRun.error).toBe('out of memory');
    expect(failedRun.stopReason).toBeUndefined();
    expect(listRuns(ws.read, projectId).map((r) => r.id).sort()).toEqual([run.id, failed.id].sort());
    expect(deleteRun(ws.write, failed.id)).toBe(true);
    ws.close();
  });

  it('marks runs left running by a SIGKILLed process as interrupted on reopen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'benchtop-runs-'));
    dirs.push(dir);
    const here = (f: string): string => JSON.stringify(fileURLToPath(new URL(f, import.meta.url)));
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { openWorkspace } from ${here('./db.ts')};
      import { createProject } from ${here('./projects.ts')};
      import { createRun, updateRunStatus } from ${here('./runs.ts')};
      import { appendMetrics } from ${here('./metrics.ts')};
      const ws = openWorkspace(${JSON.stringify(dir)});
      const projectId = createProject(ws.write, { name: 'p' }).id;
      const a = createRun(ws.write, { projectId, task: 'ner', config: {} });
      const b = createRun(ws.write, { projectId, task: 'ner', config: {} });
      updateRunStatus(ws.write, a.id, 'running');
      appendMetrics(ws.write, a.id, [{ epoch: 0, step: 10, split: 'train', name: 'loss', value: 1.5 }]);
      console.log(JSON.stringify([a.id, b.id]));
      process.kill(process.pid, 'SIGKILL');`], { encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    const [a, b] = JSON.parse(child.stdout) as [string, string];
    const ws = openWorkspace(dir);
    expect(getRun(ws.read, a)).toMatchObject({ status: 'interrupted', error: INTERRUPTED_MESSAGE });
    expect(getRun(ws.read, a)?.finishedAt).toBeDefined();
    expect(getRun(ws.read, b)?.status).toBe('queued');
    expect(listMetricSeries(ws.read, a, 'loss', 'train')).toHaveLength(1);
    expect(updateRunStatus(ws.write, a, 'running').status).toBe('running');
    ws.close();
  });
});

describe('metrics', () => {
  it('appends, overwrites a re-logged step, keeps NaN, and summarises per epoch', () => {
    const ws = openMemory();
    const run = createRun(ws.write, { projectId: createProject(ws.write, { name: 'p' }).id, task: 'ner', config: {} });
    const points = [0, 1, 2].flatMap((epoch) => [
      ...[1, 2, 3].map((i) => ({ epoch, step: epoch * 3 + i, split: 'train', name: 'loss', value: 2 / (epoch * 3 + i) })),
      { epoch, step: epoch * 3 + 3, split: 'dev', name: 'f1', value: 0.5 + epoch / 10 },
    ]);
    appendMetrics(ws.write, run.id, points);
    appendMetrics(ws.write, run.id, [{ epoch: 2, step: 9, split: 'train', name: 'loss', value: Number.NaN }]);
    const loss = listMetricSeries(ws.read, run.id, 'loss', 'train');
    expect(loss.map((p) => p.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(loss.at(-1)?.value).toBeNaN();
    const epochs = listEpochMetrics(ws.read, run.id);
    expect(epochs.map((p) => [p.epoch, p.split, p.name, p.step])).toEqual([
      [0, 'dev', 'f1', 3], [0, 'train', 'loss', 3], [1, 'dev', 'f1', 6], [1, 'train', 'loss', 6], [2, 'dev', 'f1', 9], [2, 'train', 'loss', 9],
    ]);
    expect(epochs[1]?.value).toBeCloseTo(2 / 3);
    expect(epochs[2]?.value).toBeCloseTo(0.6);
    const plan = traceQueries(ws.read, () => listMetricSeries(ws.read, run.id, 'loss', 'train')).flatMap((q) => queryPlan(ws.read, q));
    expect(plan.join('\n')).toMatch(/SEARCH run_metrics USING INDEX run_metrics_by_run \(run_id=\? AND name=\?\)/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    const epochPlan = traceQueries(ws.read, () => listEpochMetrics(ws.read, run.id)).flatMap((q) => queryPlan(ws.read, q));
    expect(epochPlan.join('\n')).toMatch(/USING INDEX run_metrics_by_run \(run_id=\?\)/);
    deleteRun(ws.write, run.id);
    expect(ws.read.get<{ n: number }>(sql`SELECT count(*) AS n FROM run_metrics`)?.n).toBe(0);
    ws.close();
  });
});

describe('files', () => {
  it('hashes large binaries on disk and records only path, size and sha256', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'benchtop-files-'));
    dirs.push(dir);
    const abs = join(dir, 'weights.bin');
    writeFileSync(abs, Buffer.alloc(3 * 1024 * 1024, 7));
    const { sizeBytes, sha256 } = await hashFile(abs);
    expect(sizeBytes).toBe(3 * 1024 * 1024);
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    const ws = openMemory();
    const f = registerFile(ws.write, { path: 'models/m1/weights.bin', sizeBytes, sha256, kind: 'model' });
    expect(getFile(ws.read, f.path)).toEqual(f);
    expect(listFiles(ws.read, 'checkpoint')).toEqual([]);
    expect(listFiles(ws.read)).toHaveLength(1);
    expect(deleteFileRecord(ws.write, f.path)).toBe(true);
    ws.close();
  });
});
