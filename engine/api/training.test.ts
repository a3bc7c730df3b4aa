// Handler tests of the long-running work on a tiny preset (small-2L-128, a few steps): train
// start → progress → finished → model registered with lineage; cancel and resume, also after a
// restart; predictions saved as suggestions; evaluation with errors; distillation PHI status.
// Start again from a run's document snapshot (no checkpoint) is training-restart.test.ts's.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LineageRecord } from '../distill/lineage.ts';
import { missingGpuLibrary } from '../runtime/gpu-library.ts';
import type { Args, EngineRequestName, EventName, Events, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { splitIndices } from '../tasks/ner-task.ts';
import { type Engine, createEngine } from './handlers.ts';

const VOCAB = resolve(
  import.meta.dirname,
  '../../../shared/data/vocab/bert-base-uncased-vocab.txt',
);
const TINY = { preset: 'small-2L-128', batchSize: 2, maxLength: 48, epochs: 1 } as const;

let dir: string;
let engine: Engine;
let events: { name: EventName; payload: unknown }[] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

function open(): void {
  engine = createEngine({ dataDir: dir });
  engine.subscribe((name, payload) => events.push({ name, payload }));
}

/** Resolves with the first event `name` matching `pick`. */
async function next<K extends EventName>(
  name: K,
  pick: (p: Events[K]) => boolean = () => true,
  ms = 90_000,
): Promise<Events[K]> {
  const t0 = Date.now();
  for (;;) {
    const hit = events.find((e) => e.name === name && pick(e.payload as Events[K]));
    if (hit) return hit.payload as Events[K];
    if (Date.now() - t0 > ms) throw new Error(`no ${name} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function demo(): Promise<{ projectId: number; datasetId: number }> {
  const [p] = await call('projects:list', {});
  const [d] = await call('datasets:list', { projectId: p!.id });
  return { projectId: p!.id, datasetId: d!.id };
}

async function trainTiny(extra: Partial<Args<'train:start'>> = {}): Promise<string> {
  const { projectId, datasetId } = await demo();
  const { runId } = await call('train:start', {
    projectId,
    task: 'ner',
    datasetIds: [datasetId],
    ...TINY,
    maxSteps: 3,
    ...extra,
  });
  return runId;
}

beforeAll(() => {
  vi.stubEnv('BENCHTOP_VOCAB', VOCAB);
});
afterAll(() => {
  vi.unstubAllEnvs();
});
function openFresh(): void {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-train-api-'));
  events = [];
  open();
}
async function closeAndRemove(): Promise<void> {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

describe('training through the API', () => {
  beforeEach(openFresh);
  afterEach(closeAndRemove);

  it('trains a tiny model, streams progress and registers it with lineage', async () => {
    const options = await call('train:get-options', {});
    expect(options.hasPresetVocabulary).toBe(true);
    expect(options.presets.map((p) => p.name)).toContain('small-2L-128');
    const runId = await trainTiny();
    const done = await next('train:finished', (p) => p.runId === runId);
    expect(done).toMatchObject({ runId, status: 'completed' });
    const progress = events.filter((e) => e.name === 'train:progress');
    expect(progress.length).toBeGreaterThan(0);
    // totalEpochs: the 3 steps allowed end in the first epoch (the screen's "epoch 1 of 1").
    expect(progress.at(-1)!.payload).toMatchObject({ runId, step: 3, totalEpochs: 1, device: 'cpu' });
    expect(progress.at(-1)!.payload).not.toHaveProperty('deviceNote'); // the CPU, as asked, in place

    const [run] = await call('train:list-runs', { projectId: (await demo()).projectId });
    expect(run).toMatchObject({
      id: runId,
      status: 'completed',
      modelId: done.modelId,
      canResume: false,
      stopReason: 'max-steps', // one epoch of the demo notes is more than the 3 steps allowed
      baseName: 'new small-2L-128 model from random weights', // trained from scratch, not fine-tuned
    });
    const metrics = await call('train:get-metrics', { runId });
    expect(metrics.loss.map((p) => p.step)).toContain(3);
    expect(metrics.devF1.length).toBeGreaterThan(0);

    const models = await call('models:list', {});
    const model = models.find((m) => m.id === done.modelId)!;
    expect(model).toMatchObject({ task: 'token-classification', phiStatus: 'no-phi' });
    expect(model.labels).toContain('B-Disease');
    expect(existsSync(join(dir, model.path, 'model.safetensors'))).toBe(true);
    const lineage = await call('models:get-lineage', { modelId: model.id });
    expect(lineage.entries.map((e) => e.kind).sort()).toEqual(['fine-tune', 'init']);
    expect(lineage.entries.find((e) => e.kind === 'fine-tune')?.datasetName).toMatch(/demo/i);
    // The folder carries the same record, so a copy of it keeps its status (models:import-folder).
    const record = JSON.parse(readFileSync(join(dir, model.path, 'lineage.json'), 'utf8')) as LineageRecord;
    expect(record.phi_status).toBe('no-phi');
    expect(record.entries.map((e) => [e.kind, e.containsPhi, e.gradients]).sort()).toEqual([['fine-tune', false, true], ['init', false, true]]);
    expect(existsSync(join(dir, 'runs', runId))).toBe(false); // the document snapshot is gone
  });

  it.skipIf(missingGpuLibrary() === null)('trains on the CPU when Settings ask for the GPU but it cannot be used, and says why', async () => {
    await call('settings:update', { device: 'webgpu' });
    const runId = await trainTiny({ maxSteps: 1 });
    expect(await next('train:finished', (p) => p.runId === runId)).toMatchObject({ status: 'completed' });
    const progress = events.filter((e) => e.name === 'train:progress').map((e) => e.payload as Events['train:progress']);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) {
      expect(p.device).toBe('cpu');
      expect(p.deviceNote).toBe('WebGPU unavailable (no Vulkan loader, libvulkan.so.1, is installed); using the CPU');
    }
  });

  it('trains on everything when the held-out share has no entity, instead of failing', async () => {
    // The share held out by documents is given to the engine as dev data: when it held only a
    // "no findings" note the run failed ("dev documents: none of the 1 document has annotated
    // entities"). The engine then holds out its own part, as `benchtop train` does.
    const held = new Set(splitIndices(10, 42).dev); // the share the workbench holds out (seed 42)
    const lines = [...Array(10).keys()].map((i) =>
      JSON.stringify(
        held.has(i)
          ? { id: `n${i}`, text: 'No acute findings today.', entities: [] }
          : { id: `n${i}`, text: 'The patient has asthma.', entities: [{ start: 16, end: 22, type: 'Disease' }] },
      ),
    );
    const file = join(dir, 'notes.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const project = await call('projects:create', { name: 'Clinic', template: 'biomedical' });
    const { datasetId } = await call('documents:import', { projectId: project.id, path: file, containsPhi: false });
    const page = await call('documents:list', { projectId: project.id, limit: 20 });
    for (const d of page.items) await call('documents:set-status', { documentId: d.id, status: 'annotated' });
    const { runId } = await call('train:start', { projectId: project.id, task: 'ner', datasetIds: [datasetId!], ...TINY, maxSteps: 2 });
    expect(await next('train:finished', (p) => p.runId === runId)).toMatchObject({ status: 'completed' });
  });

  it('explains what is missing instead of starting a run', async () => {
    const { projectId } = await demo();
    const empty = await call('projects:create', { name: 'Empty' });
    await expect(
      call('train:start', { projectId: empty.id, task: 'ner', datasetIds: [999] }),
    ).rejects.toThrow(/not-found/);
    const { datasetId } = await demo();
    await expect(
      call('train:start', { projectId, task: 're', datasetIds: [datasetId], preset: 'nope' }),
    ).rejects.toThrow(/no model size called/);
  });

  it('cancels with a checkpoint, resumes, and resumes a run interrupted by a restart', async () => {
    // 20 steps (4 epochs of the demo notes, each ending in an evaluation and a checkpoint): more
    // than the few a cancel lets through, and few enough for the last resume to run to the end.
    const runId = await trainTiny({ maxSteps: 20, epochs: 200 });
    await next('train:progress', (p) => p.runId === runId);
    await expect(trainTiny()).rejects.toThrow(/Another training run is in progress \(“.+” in project “Demo: clinical notes”, on its Train screen\)/);
    await call('train:cancel', { runId });
    expect(await next('train:finished', (p) => p.runId === runId)).toMatchObject({
      status: 'cancelled',
    });
    const { projectId } = await demo();
    expect((await call('train:list-runs', { projectId }))[0]).toMatchObject({ canResume: true });

    // Resume, then "crash" (close the engine mid-run) and reopen: the run is interrupted.
    events = [];
    await call('train:resume', { runId });
    await next('train:progress', (p) => p.runId === runId);
    await engine.close();
    events = [];
    open();
    const [again] = await call('train:list-runs', { projectId });
    expect(again).toMatchObject({ status: 'interrupted', canResume: true });
    await call('train:resume', { runId });
    const done = await next('train:finished', (p) => p.runId === runId, 150_000);
    expect(done.status).toBe('completed');
    const metrics = await call('train:get-metrics', { runId });
    expect(metrics.loss.at(-1)!.step).toBeGreaterThan(metrics.loss[0]!.step);
    expect(metrics.loss.at(-1)!.step, 'the resumed run went on to its last step').toBe(20);
  }, 240_000);

  it('fails a Continue from a damaged checkpoint once, keeps the checkpoint aside and offers Start again', async () => {
    const runId = await trainTiny({ maxSteps: 400, epochs: 200 });
    await next('train:progress', (p) => p.runId === runId);
    await call('train:cancel', { runId });
    await next('train:finished', (p) => p.runId === runId);
    const ckpt = join(dir, 'runs', runId, 'out', 'checkpoint');
    const file = readdirSync(ckpt).find((f) => f.endsWith('.safetensors'))!;
    const bytes = readFileSync(join(ckpt, file));
    bytes[bytes.byteLength - 5] = (bytes[bytes.byteLength - 5] as number) ^ 0x04; // one bit of a moment
    writeFileSync(join(ckpt, file), bytes);
    events = [];
    await call('train:resume', { runId });
    const failed = await next('train:finished', (p) => p.runId === runId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain(`${file}: invalid safetensors file: the weights do not match the SHA-256 checksum`);
    expect(failed.error).toContain(`The damaged checkpoint was kept as ${ckpt}-damaged.`);
    expect(readdirSync(`${ckpt}-damaged`)).toContain(file);
    const { projectId } = await demo();
    expect((await call('train:list-runs', { projectId })).find((r) => r.id === runId)).toMatchObject({ canResume: false, canRestart: true });
    events = [];
    await call('train:resume', { runId });
    expect((await next('train:progress', (p) => p.runId === runId)).step).toBe(1);
    await call('train:cancel', { runId });
    await next('train:finished', (p) => p.runId === runId);
  }, 120_000);

  it("refuses to delete a project while its run is in progress, then removes the runs' document snapshots with it", async () => {
    const runId = await trainTiny({ maxSteps: 400, epochs: 200 });
    await next('train:progress', (p) => p.runId === runId);
    const { projectId } = await demo();
    await expect(call('projects:delete', { projectId })).rejects.toThrow(/^conflict: This project has a run in progress/);
    await call('train:cancel', { runId });
    await next('train:finished', (p) => p.runId === runId);
    expect(existsSync(join(dir, 'runs', runId, 'data.json'))).toBe(true); // kept for resuming
    expect(await call('projects:delete', { projectId })).toEqual({ isDeleted: true });
    expect(existsSync(join(dir, 'runs', runId))).toBe(false);
  }, 120_000);

  it("discards a stopped run's document snapshot and checkpoint on request, never a running run's", async () => {
    const runId = await trainTiny({ maxSteps: 400, epochs: 200 });
    await next('train:progress', (p) => p.runId === runId);
    await expect(call('train:discard', { runId })).rejects.toThrow(/^conflict: This run is in progress/);
    await call('train:cancel', { runId });
    await next('train:finished', (p) => p.runId === runId);
    expect(existsSync(join(dir, 'runs', runId, 'out', 'checkpoint'))).toBe(true);
    events = [];
    expect(await call('train:discard', { runId })).toEqual({ isDiscarded: true });
    expect(existsSync(join(dir, 'runs', runId))).toBe(false);
    const { projectId } = await demo();
    await next('workspace:changed', (p) => p.what === 'runs' && p.projectId === projectId);
    expect((await call('train:list-runs', { projectId })).find((r) => r.id === runId)).toMatchObject({
      status: 'cancelled',
      canResume: false,
      canRestart: false,
    });
    await expect(call('train:resume', { runId })).rejects.toThrow(/^conflict: This run has nothing left to continue from/);
    expect(await call('train:discard', { runId })).toEqual({ isDiscarded: false });
    await expect(call('train:discard', { runId: 'no-such-run' })).rejects.toThrow(/^not-found/);
  }, 120_000);

  it('distils a PHI-trained teacher into a student whose gradients saw no PHI', async () => {
    const { projectId } = await demo();
    const file = join(dir, 'private.txt');
    const note = 'Patient given aspirin for migraine.';
    writeFileSync(
      file,
      `1|t|${note}\n1|a|No further findings.\n1\t14\t21\taspirin\tChemical\t-\n1\t26\t34\tmigraine\tDisease\t-\n\n` +
        `2|t|${note}\n2|a|Migraine again.\n2\t26\t34\tmigraine\tDisease\t-\n\n`,
    );
    const imported = await call('documents:import', { projectId, path: file, containsPhi: true });
    const teacherRun = await trainTiny({ datasetIds: [imported.datasetId!], maxSteps: 2 });
    const teacher = await next('train:finished', (p) => p.runId === teacherRun);
    expect(teacher.status).toBe('completed');
    const models = await call('models:list', {});
    const teacherModel = models.find((m) => m.id === teacher.modelId)!;
    expect(teacherModel.phiStatus).toBe('trained-on-phi');
    const teacherRecord = JSON.parse(readFileSync(join(dir, teacherModel.path, 'lineage.json'), 'utf8')) as LineageRecord;
    expect(teacherRecord.phi_status).toBe('trained-on-phi');
    expect(teacherRecord.statement).toMatch(/^trained on PHI/);
    expect(teacherRecord.entries.find((e) => e.kind === 'fine-tune')).toMatchObject({ containsPhi: true, gradients: true });

    // A folder of the user's text is recorded as free of patient information only when declared so.
    const own: Args<'distill:start'> = { projectId, task: 'ner', teacherModelId: teacher.modelId!, studentPreset: 'small-2L-128', transfer: ['random', dir], steps: 2 };
    await expect(call('distill:start', own)).rejects.toThrow(/^invalid: Confirm that your transfer text holds no patient information/);
    await expect(call('distill:start', { ...own, transferIsFreeOfPhi: false })).rejects.toThrow(/^invalid: Confirm/);
    const { runId } = await call('distill:start', {
      projectId,
      task: 'ner',
      teacherModelId: teacher.modelId!,
      studentPreset: 'small-2L-128',
      transfer: ['random'],
      steps: 2,
    });
    const done = await next('train:finished', (p) => p.runId === runId, 150_000);
    expect(done).toMatchObject({ status: 'completed' });
    const student = (await call('models:list', {})).find((m) => m.id === done.modelId)!;
    expect(student.phiStatus).toBe('distilled-from-phi-teacher');
    expect(existsSync(join(dir, student.path, 'checkpoint'))).toBe(false);
    const lineage = await call('models:get-lineage', { modelId: student.id });
    expect(lineage.entries.filter((e) => e.path === 'direct').map((e) => e.kind)).toEqual(
      expect.arrayContaining(['teacher', 'distill-transfer']),
    );
    const runs = await call('train:list-runs', { projectId });
    expect(runs.find((r) => r.id === runId)).toMatchObject({ kind: 'distill' });
  }, 240_000);
});

// Tests that only read a trained entity model share one (the run's own claims are asserted once).
describe('with an entity model overfit on the demo notes', () => {
  let overfit: Events['train:finished'];
  beforeAll(async () => {
    openFresh();
    // A high learning rate overfits the three annotated demo notes: the model then finds entities.
    const runId = await trainTiny({ maxSteps: 120, epochs: 500, lr: 0.005 });
    overfit = await next('train:finished', (p) => p.runId === runId);
  }, 120_000);
  afterAll(closeAndRemove);

  it('saves predictions as suggestions and evaluates with click-through errors', async () => {
    const { runId, modelId } = overfit;
    const { projectId, datasetId } = await demo();
    const runInfo = (await call('train:list-runs', { projectId })).find((r) => r.id === runId);
    // Dev F1 (measured each epoch) stops improving long before 120 steps; the run says so.
    expect(runInfo?.stopReason).toBe('early-stopped');
    const curve = await call('train:get-metrics', { runId });
    expect(curve.loss.at(-1)!.step).toBeLessThan(120);
    const page = await call('documents:list', { projectId });
    const { jobId } = await call('run:predict', {
      projectId,
      modelId: modelId!,
      documentIds: page.items.map((d) => d.id),
    });
    const finished = await next('run:finished', (p) => p.jobId === jobId);
    expect(finished.status).toBe('completed');
    expect(finished.result).toMatchObject({ source: 'project', documents: page.items.length });
    expect(finished.result!.rows.every((r) => r.documentId !== undefined)).toBe(true);
    const predicted = await call('documents:list', { projectId, filter: 'predicted' });
    expect(predicted.total).toBeGreaterThan(0);
    const doc = await call('documents:get', { documentId: predicted.items[0]!.id });
    const suggestion = doc.entities.find((e) => e.status === 'suggested')!;
    expect(suggestion).toMatchObject({ origin: 'model' });
    expect(suggestion.originDetail).toContain(modelId!.slice(0, 8));
    const jobs = await call('run:list-jobs', {});
    expect(jobs[0]).toMatchObject({ jobId, status: 'completed' });

    const ev = await call('evaluate:start', {
      projectId,
      modelId: modelId!,
      datasetIds: [datasetId],
    });
    const report = (await next('evaluate:finished', (p) => p.jobId === ev.jobId)).report!;
    expect(report.perType.map((r) => r.name)).toContain('Disease');
    expect(report.confusion!.labels.at(-1)).toBe('O');
    const err = report.errors[0];
    if (err) {
      const doc = await call('documents:get', { documentId: err.documentId });
      expect(doc.text.slice(err.start, err.end)).toBe(err.text);
    }

    // A project whose labels share nothing with the model's is refused, naming both.
    const other = await call('projects:create', { name: 'Other labels', template: 'empty' });
    await call('schema:save-entity-type', { projectId: other.id, entityType: { name: 'Drug', color: '#336699' } });
    const note = join(dir, 'note.txt');
    writeFileSync(note, 'Aspirin was given for the headache.');
    const imported = await call('documents:import', { projectId: other.id, path: note, containsPhi: false });
    const refused = /^invalid: “.+” finds .*“Disease”.*, but this project's labels are “Drug”: none in common/;
    await expect(call('run:predict', { projectId: other.id, modelId: modelId! })).rejects.toThrow(refused);
    await expect(call('evaluate:start', { projectId: other.id, modelId: modelId!, datasetIds: [imported.datasetId!] })).rejects.toThrow(refused);
  }, 120_000);

  it('trains a relation model and predicts entities and relations with both models', async () => {
    const ner = overfit;
    const reRun = await trainTiny({ task: 're' });
    const re = await next('train:finished', (p) => p.runId === reRun);
    expect(re.status).toBe('completed');
    const models = await call('models:list', {});
    expect(models.find((m) => m.id === re.modelId)?.task).toBe('sequence-classification');
    const { projectId } = await demo();
    await expect(call('run:predict', { projectId, modelId: re.modelId! })).rejects.toThrow(
      /not an entity \(NER\) model/,
    );
    const { jobId } = await call('run:predict', {
      projectId,
      modelId: ner.modelId!,
      reModelId: re.modelId!,
    });
    expect((await next('run:finished', (p) => p.jobId === jobId)).status).toBe('completed');
  }, 120_000);

  // Last here: it removes the shared run (the tests above read it).
  it('removes a run from the list with its curves and checkpoint, never a running one; its model stays', async () => {
    const running = await trainTiny({ maxSteps: 400, epochs: 200 });
    await next('train:progress', (p) => p.runId === running);
    await expect(call('train:remove', { runId: running })).rejects.toThrow(/^conflict: This run is in progress; stop it first, then remove it/);
    await call('train:cancel', { runId: running });
    await next('train:finished', (p) => p.runId === running);
    expect(existsSync(join(dir, 'runs', running, 'out', 'checkpoint'))).toBe(true);
    expect(await call('train:remove', { runId: running })).toEqual({ isRemoved: true });
    expect(existsSync(join(dir, 'runs', running))).toBe(false);

    const { runId: finished, modelId } = overfit;
    expect(await call('train:remove', { runId: finished })).toEqual({ isRemoved: true });
    const { projectId } = await demo();
    const ids = (await call('train:list-runs', { projectId })).map((r) => r.id);
    expect(ids).not.toContain(running);
    expect(ids).not.toContain(finished);
    expect((await call('models:list', {})).map((m) => m.id)).toContain(modelId);
    await expect(call('train:get-metrics', { runId: finished })).rejects.toThrow(/^not-found/);
    await expect(call('train:remove', { runId: finished })).rejects.toThrow(/^not-found: That run no longer exists/);
  }, 120_000);
});
