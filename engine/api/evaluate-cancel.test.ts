// Cancel on the Evaluate screen while a relation model's candidate pairs are being encoded: a
// note without sentence breaks (a 1,000-entity list on one line) gave 250,000 pairs whose encoding
// ran to its end (minutes, and gigabytes) before the cancel was looked at. It now ends promptly,
// as 'cancelled'.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HAS_DATA, randomTaskModel } from '../tasks/test-helpers.ts';
import type { Args, EngineRequestName, Events, Reply, Result } from './contract.ts';
import { type Engine, createEngine } from './handlers.ts';

let dir: string;
let engine: Engine;
const finished: Events['evaluate:finished'][] = [];

async function call<K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> {
  const reply = (await engine.invoke(name, args)) as Reply<Result<K>>;
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

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

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-eval-cancel-'));
  engine = createEngine({ dataDir: join(dir, 'data') });
  engine.subscribe((name, payload) => {
    if (name === 'evaluate:finished') finished.push(payload as Events['evaluate:finished']);
  });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

it.skipIf(!HAS_DATA)('Cancel stops a relation evaluation of a 1,000-entity list within seconds', async () => {
  const model = randomTaskModel(join(dir, 're'), { task: 're', maxLength: 128, negativeLabel: 'false', entityPairs: [['CHEMICAL', 'DISEASE']] }, ['false', 'CID']);
  const project = await call('projects:create', { name: 'Lists' });
  const file = join(dir, 'list.txt');
  writeFileSync(file, listAbstract(1000));
  const imported = await call('documents:import', { projectId: project.id, path: file, containsPhi: false });
  const ref = await call('models:import-folder', { path: model, phiStatus: 'no-phi', name: 'Random CID' });
  const { jobId } = await call('evaluate:start', { projectId: project.id, modelId: ref.id, datasetIds: [imported.datasetId!] });
  await new Promise((r) => setTimeout(r, 1500));
  expect(finished).toEqual([]);
  const t0 = performance.now();
  expect(await call('run:cancel', { jobId })).toEqual({ isCancelling: true });
  while (!finished.some((f) => f.jobId === jobId) && performance.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
  expect(finished.find((f) => f.jobId === jobId)).toMatchObject({ status: 'cancelled' });
  expect(performance.now() - t0).toBeLessThan(3000);
}, 60_000);
