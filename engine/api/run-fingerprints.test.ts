// A workbench run writes its documents' fingerprints with its model (train-task.ts, and
// task-distill.ts for private documents) and says which texts they are; the registration keeps
// that file instead of hashing the run's snapshot a second time (engine/distill/
// run-fingerprints.test.ts counts the hashing). Here, through the application API: the launcher
// hands the run's word on to the registration, and the registered model's file is the notes'.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FINGERPRINT_FILE, fingerprintBytes, readFingerprintFile, textsDigest } from '../distill/fingerprint-file.ts';
import { importPubtator } from '../formats/pubtator.ts';
import * as jobs from '../tasks/jobs.ts';
import type { Reply } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

vi.mock('../tasks/jobs.ts', async (importOriginal) => {
  const real = await importOriginal<typeof jobs>();
  return { ...real, recordFingerprintsInWorker: vi.fn(real.recordFingerprintsInWorker) };
});
const recorded = vi.mocked(jobs.recordFingerprintsInWorker);
/** The texts of each registered run's snapshot (removed once the model is registered), in order. */
const snapshots: string[][] = [];
/** Done to the run's output before its registration records the fingerprints. */
let beforeRecording: ((out: string) => void | Promise<void>) | undefined;
beforeEach(() => {
  snapshots.length = 0;
  recorded.mockClear();
  const real = recorded.getMockImplementation()!;
  recorded.mockImplementationOnce(async (runDir, out, written, ...rest) => {
    type Part = { text: string }[] | undefined;
    const data = JSON.parse(readFileSync(join(runDir, 'data.json'), 'utf8')) as { train?: Part; dev?: Part; private?: Part };
    snapshots.push([...(data.train ?? []), ...(data.dev ?? []), ...(data.private ?? [])].map((d) => d.text));
    await beforeRecording?.(out);
    return real(runDir, out, written, ...rest);
  });
});

const NCBI_DEV = resolve(import.meta.dirname, '../../../shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
/** The "PHI notes": the first 12 NCBI-disease development abstracts, with their annotations. */
const pubtator = readFileSync(NCBI_DEV, 'utf8').trim().split(/\n\s*\n/).slice(0, 12).join('\n\n') + '\n';
const notes = importPubtator(pubtator, 'notes.txt').documents.map((d) => d.text);

let t: TestEngine;
let projectId: number;
let datasetId: number;

function finished(): Promise<{ status: string; modelId?: string; error?: string }> {
  return new Promise((done) => {
    const stop = t.engine.subscribe((event, payload) => {
      if (event !== 'train:finished') return;
      stop();
      done(payload as { status: string; modelId?: string; error?: string });
    });
  });
}

async function modelDir(id: string | undefined): Promise<string> {
  const model = (await t.call('models:list', {})).find((m) => m.id === id)!;
  return join(t.dir, 'data', model.path);
}

beforeAll(async () => {
  t = openTestEngine('benchtop-run-fingerprints-', { inSubfolder: true });
  projectId = (await t.call('projects:create', { name: 'Ward 12', template: 'biomedical' })).id;
  const file = join(t.dir, 'ward-12.pubtator');
  writeFileSync(file, pubtator);
  datasetId = (await t.call('documents:import', { projectId, path: file, containsPhi: true })).datasetId!;
  rmSync(file);
}, 60_000);
afterAll(() => t.close());

describe('a workbench run’s fingerprints at registration', () => {
  async function expectKept(run: { status: string; modelId?: string; error?: string }): Promise<void> {
    expect(run.status, run.error).toBe('completed');
    expect(recorded).toHaveBeenCalledTimes(1);
    const [texts] = snapshots;
    // The run's documents are the notes (in the run's order), and it named them to the registration.
    expect([...(texts ?? [])].sort()).toEqual([...notes].sort());
    expect(recorded.mock.calls[0]?.[2]).toBe(textsDigest(texts ?? []));
    expect(readFileSync(join(await modelDir(run.modelId), FINGERPRINT_FILE)).equals(fingerprintBytes(texts ?? []))).toBe(true);
  }

  it('a training run names the notes it fingerprinted, and its model keeps their fingerprints', async () => {
    const done = finished();
    await t.call('train:start', { projectId, task: 'ner', datasetIds: [datasetId], preset: 'small-2L-128', batchSize: 2, maxLength: 48, epochs: 1, maxSteps: 2 });
    await expectKept(await done);
  }, 120_000);

  it('so does a distillation mixed with the private notes', async () => {
    const teacher = (await t.call('models:list', {})).find((m) => m.task === 'token-classification' && m.phiStatus === 'trained-on-phi')!;
    const done = finished();
    await t.call('distill:start', { projectId, task: 'ner', teacherModelId: teacher.id, studentPreset: 'small-2L-128', transfer: ['random'], includePrivate: { datasetIds: [datasetId], alpha: 0.3 }, steps: 1 });
    await expectKept(await done);
  }, 120_000);

  // A run that wrote no file (an older version, a crash) gets one at registration: a student
  // started from the PHI-trained model keeps that model's fingerprints (until 2026-11-24 the file
  // was written from the run's own documents only, here none). And that model cannot be removed
  // while the run's own is registered: its worker has ended, but the registration reads the
  // model's fingerprints and lineage (removing it was allowed then, and the registration failed).
  it('a student started from a PHI-trained model keeps its fingerprints when the run wrote none', async () => {
    const teacher = (await t.call('models:list', {})).find((m) => m.task === 'token-classification' && m.phiStatus === 'trained-on-phi')!;
    const inherited = readFingerprintFile(await modelDir(teacher.id))!;
    let removal: Reply<unknown> | undefined;
    beforeRecording = async (out) => {
      rmSync(join(out, FINGERPRINT_FILE));
      removal = await t.invoke('models:delete', { modelId: teacher.id });
    };
    const done = finished();
    try {
      await t.call('distill:start', { projectId, task: 'ner', teacherModelId: teacher.id, studentModelId: teacher.id, transfer: ['random'], steps: 1, name: 'Ward student' });
      const run = await done;
      expect(run.status, run.error).toBe('completed');
      expect(removal).toEqual({
        ok: false,
        error: {
          code: 'conflict',
          message: `“${teacher.name}” is in use by the run “Ward student”, whose model is being added to the library (Distill screen); wait for that to finish, then remove the model.`,
        },
      });
      expect((await t.call('models:list', {})).some((m) => m.id === teacher.id)).toBe(true);
      expect(readFileSync(join(await modelDir(run.modelId), FINGERPRINT_FILE)).equals(fingerprintBytes([], [inherited]))).toBe(true);
    } finally {
      beforeRecording = undefined;
    }
  }, 120_000);
});
