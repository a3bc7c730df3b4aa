// Cancel on the Evaluate screen while a relation model's candidate pairs are being encoded: a
// note without sentence breaks (a long entity list on one line) gave tens of thousands of pairs
// whose encoding ran to its end (tens of seconds, and hundreds of megabytes) before the cancel was
// looked at. It now ends promptly, as 'cancelled'.
//
// "Promptly" is measured against the work itself, not a fixed number of seconds (a 3 s bound went
// red once on a loaded machine): the same evaluation is first timed to its first inference batch
// (reading the pairs, encoding them all, loading the model), then run again and cancelled a
// quarter of the way; it must end within half that time, so it cannot have done most of the work
// after the cancel, however busy the machine. 500 entities give 12,324 candidate pairs (each with the
// other type's up to 50 entities away), whose encoding is still most of that work (1,000: twice that).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HAS_DATA, randomTaskModel } from '../tasks/test-helpers.ts';
import type { Args, EngineRequestName, Events, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { type Engine, createEngine } from './handlers.ts';

let dir: string;
let engine: Engine;
const finished: Events['evaluate:finished'][] = [];
const progress: Events['run:progress'][] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

/** A PubTator abstract listing `n` chemicals and diseases in turn, with no sentence break. */
function listAbstract(n: number): string {
  const words = ['aspirin', 'hypertension', 'metformin', 'diabetes'];
  const title = 'Medication list';
  let text = '';
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = words[i % words.length] as string;
    const start = title.length + 1 + text.length;
    text += `${w} 10 mg, `;
    lines.push(`1\t${start}\t${start + w.length}\t${w}\t${i % 2 === 0 ? 'Chemical' : 'Disease'}\tC${i}`);
  }
  return [`1|t|${title}`, `1|a|${text}end.`, ...lines, '1\tCID\tC0\tC1', ''].join('\n');
}

/** Waits until `done` holds (checked every 20 ms), at most `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const t0 = performance.now();
  while (!done() && performance.now() - t0 < ms) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-eval-cancel-'));
  engine = createEngine({ dataDir: join(dir, 'data') });
  engine.subscribe((name, payload) => {
    if (name === 'evaluate:finished') finished.push(payload as Events['evaluate:finished']);
    if (name === 'run:progress') progress.push(payload as Events['run:progress']);
  });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

it.skipIf(!HAS_DATA)('Cancel stops a relation evaluation of a 500-entity list before it encodes most of its pairs', async () => {
  const model = randomTaskModel(join(dir, 're'), { task: 're', maxLength: 128, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']);
  const project = await call('projects:create', { name: 'Lists' });
  const file = join(dir, 'list.txt');
  writeFileSync(file, listAbstract(500));
  const imported = await call('documents:import', { projectId: project.id, path: file, containsPhi: false });
  const ref = await call('models:import-folder', { path: model, phiStatus: 'no-phi', name: 'Random CID' });
  const args = { projectId: project.id, modelId: ref.id, datasetIds: [imported.datasetId!] };
  const ended = (jobId: string): Events['evaluate:finished'] | undefined => finished.find((f) => f.jobId === jobId);

  // The work before inference, timed on this machine now: from the start to the first batch.
  const first = await call('evaluate:start', args);
  const s0 = performance.now();
  await until(() => progress.some((p) => p.jobId === first.jobId && p.phase === 're') || ended(first.jobId) !== undefined, 300_000);
  const work = performance.now() - s0;
  expect(ended(first.jobId)).toBeUndefined();
  await call('run:cancel', { jobId: first.jobId });
  await until(() => ended(first.jobId) !== undefined, 60_000);

  // The same evaluation, cancelled a quarter of the way through that work.
  const { jobId } = await call('evaluate:start', args);
  await new Promise((r) => setTimeout(r, work / 4));
  expect(ended(jobId)).toBeUndefined();
  const t0 = performance.now();
  expect(await call('run:cancel', { jobId })).toEqual({ isCancelling: true });
  await until(() => ended(jobId) !== undefined, work + 30_000);
  const afterCancel = performance.now() - t0;
  expect(ended(jobId)).toMatchObject({ status: 'cancelled' });
  expect(afterCancel, `ended ${Math.round(afterCancel)} ms after Cancel; the work before inference takes ${Math.round(work)} ms`).toBeLessThan(work / 2);
}, 600_000);
