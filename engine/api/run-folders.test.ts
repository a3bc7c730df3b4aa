// A run's documents are copied into runs/<id>/ before the run is recorded (training-snapshot.ts):
// Benchtop killed during the copy left a folder of patient text that nothing listed or removed.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../store/db.ts';
import { createProject } from '../store/projects.ts';
import { createRun } from '../store/runs.ts';
import { type Engine, createEngine } from './handlers.ts';

let dir = '';
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('run folders at start', () => {
  it('removes a run folder no run records (a copy cut off by a crash), and keeps everything else', () => {
    dir = mkdtempSync(join(tmpdir(), 'benchtop-run-folders-'));
    const ws = openWorkspace(dir);
    const projectId = createProject(ws.write, { name: 'Ward 3' }).id;
    const recorded = createRun(ws.write, { projectId, task: 'ner', config: { dir: 'runs/x' } }).id;
    ws.close();
    const orphan = '0b9c8a2e-4f1d-4e8a-9c3b-7d2e1f0a5b6c';
    const folder = (name: string): string => {
      mkdirSync(join(dir, 'runs', name), { recursive: true });
      writeFileSync(join(dir, 'runs', name, 'data.json'), '{"train":[]}');
      return join(dir, 'runs', name);
    };
    const [kept, gone, notARun] = [folder(recorded), folder(orphan), folder('my-notes')];

    engine = createEngine({ dataDir: dir });
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(join(kept, 'data.json'))).toBe(true);
    // Only folders named as runs are (run ids); anything else someone put there is left alone.
    expect(existsSync(join(notARun, 'data.json'))).toBe(true);
  });
});
