// A stopped run whose copy of its documents (runs/<id>/data.json) cannot be read, cut short by a
// full disk or damaged on disk: Continue says so, naming the file and what to do, and quotes none
// of the notes (V8's JSON errors quote the text they choke on); the run stays as it was. It
// failed as an "unexpected problem (SyntaxError)… try again" and was left queued, offering nothing.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openWorkspace } from '../store/db.ts';
import { createProject } from '../store/projects.ts';
import { createRun, updateRunStatus } from '../store/runs.ts';
import { type Engine, createEngine } from './handlers.ts';
import { callEngine } from './test-engine.ts';

let dir = '';
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  rmSync(dir, { recursive: true, force: true });
});

it('Continue on a damaged snapshot names the file, quotes no text and leaves the run stopped', async () => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-snapshot-damaged-'));
  const ws = openWorkspace(dir);
  const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
  const runId = '6f1c2b3a-1d2e-4f5a-8b9c-0a1b2c3d4e5f';
  const config = { dir: `runs/${runId}`, task: 'ner', baseName: 'small-2L-128', lineage: [], engine: { kind: 'train', args: {} } };
  createRun(ws.write, { id: runId, projectId, task: 'ner', config });
  updateRunStatus(ws.write, runId, 'cancelled');
  ws.close();
  // A run stopped with a checkpoint, whose copy of its notes was cut short where a name begins:
  // V8 would quote it ('Unexpected token 'Q', "Quixmarcho"… is not valid JSON').
  mkdirSync(join(dir, 'runs', runId, 'out', 'checkpoint'), { recursive: true });
  writeFileSync(join(dir, 'runs', runId, 'out', 'checkpoint', 'state.json'), '{}');
  writeFileSync(join(dir, 'runs', runId, 'data.json'), 'Quixmarchova Ezekiel, MRN 5520912, admitted');

  engine = createEngine({ dataDir: dir });
  expect(await engine.invoke('train:resume', { runId })).toEqual({
    ok: false,
    error: {
      code: 'invalid',
      message: `This run's copy of its documents (${join('runs', runId, 'data.json')} in the data folder) is damaged (Unexpected token 'Q'), so it cannot be continued; discard what it kept (Train → the run → Discard…) and start a new run.`,
    },
  });
  const runs = await callEngine(engine, 'train:list-runs', { projectId });
  expect(runs.map((r) => r.status)).toEqual(['cancelled']);
});
