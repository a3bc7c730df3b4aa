// The status a folder's own record gives its weights, as the command line's runs read it from a
// folder they start from: a lineage.json decides; a `benchtop train` output (metrics.json listing
// its data, no lineage.json) learned from data taken as patient data; a folder with neither has
// no record, and the run's own assumption stands. A distillation from such a student says so.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DATA, HAS_DATA, randomTaskModel, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { recordedPhiStatus } from './folder-record.ts';
import { main } from './main.ts';

afterAll(removeTempDirs);

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Makes `dir` look like a `benchtop train` output: metrics.json naming a training file, no lineage.json. */
function asTrainRun(dir: string): string {
  const metrics = { task: 'ner', model: { origin: 'preset small-2L-128 + vocab.txt' }, data: { train: [{ path: '/home/ward/notes.tsv', sha256: 'ab'.repeat(32), bytes: 10 }], dev: [] }, history: [] };
  writeFileSync(path.join(dir, 'metrics.json'), JSON.stringify(metrics));
  return dir;
}

describe('recordedPhiStatus', () => {
  it('reads a lineage.json, a train run’s metrics, and nothing from a folder without either', () => {
    const dir = tempDir('folder-record');
    expect(recordedPhiStatus(path.join(ROOT, 'resources', 'models', 'default-student'))).toBe('no-phi');
    const bare = path.join(dir, 'bare');
    mkdirSync(bare);
    expect(recordedPhiStatus(bare)).toBeUndefined();
    expect(recordedPhiStatus(path.join(dir, 'not-there'))).toBeUndefined();
    expect(recordedPhiStatus(asTrainRun(bare))).toBe('trained-on-phi');
    // A lineage.json decides over metrics, even a damaged one (whose status is unknown).
    writeFileSync(path.join(bare, 'lineage.json'), '{"phi_status": ');
    expect(recordedPhiStatus(bare)).toBe('unknown');
  });

  it.runIf(HAS_DATA)('gives a distillation from a train run’s folder the status that run carries (it said unknown)', async () => {
    const dir = tempDir('distill-student-record');
    const labels = ['O', 'B-Disease', 'I-Disease'];
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32 }, labels);
    const student = asTrainRun(randomTaskModel(path.join(dir, 'run'), { task: 'ner', maxLength: 32 }, labels, 2));
    const out = path.join(dir, 'student');
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main(['distill', '--task', 'ner', '--teacher', teacher, '--student', student, '--transfer', 'random', '--steps', '1', '--batch-size', '2', '--out', out]);
      expect(err.mock.calls).toEqual([]);
      expect(code).toBe(0);
    } finally {
      err.mockRestore();
      log.mockRestore();
      write.mockRestore();
    }
    const lineage = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as { phi_status: string; entries: { kind: string; source: string; phiStatus?: string }[] };
    const start = lineage.entries.find((e) => e.kind === 'base-model');
    expect(start).toMatchObject({ phiStatus: 'trained-on-phi', source: 'weights of model "run" (recorded as trained-on-phi)' });
    expect(lineage.phi_status).toBe('trained-on-phi');
  }, 60_000);

  it.runIf(HAS_DATA)('gives continued pretraining from a train run’s folder that run’s status', async () => {
    const dir = tempDir('pretrain-model-record');
    const base = asTrainRun(randomTaskModel(path.join(dir, 'run'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']));
    const text = path.join(dir, 'leaflet.txt');
    writeFileSync(text, readFileSync(path.join(DATA, 'text', 'general', 'wiki.valid.tokens'), 'utf8').slice(0, 20_000));
    const out = path.join(dir, 'continued');
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['pretrain', '--model', base, '--text', text, '--steps', '1', '--batch-size', '2', '--max-length', '32', '--out', out])).toBe(0);
      expect(err.mock.calls).toEqual([]);
    } finally {
      err.mockRestore();
      log.mockRestore();
      write.mockRestore();
    }
    const lineage = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as { phi_status: string; entries: { kind: string; phiStatus?: string }[] };
    expect(lineage.entries.find((e) => e.kind === 'base-model')).toMatchObject({ phiStatus: 'trained-on-phi' });
    expect(lineage.phi_status).toBe('trained-on-phi');
  }, 60_000);
});
