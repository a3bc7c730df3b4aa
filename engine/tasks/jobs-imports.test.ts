// The task-worker entry (jobs.ts) loads a task's modules only when a job needs them: the worker that
// writes a finished run's fingerprints must not load onnxruntime (runtime/session.ts), the training
// stack or the document readers first. Checked on the source's static imports (type-only ones left out).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ENGINE = path.resolve(import.meta.dirname, '..');

/** Every engine module `entry` loads through static value imports (itself included), relative to engine/. */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(path.join(ENGINE, file), 'utf8');
    // `import … from '…'` and `export … from '…'`, not `import type` / `export type`.
    for (const m of source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\bfrom\s+'(\.[^']+\.ts)'/gms)) {
      visit(path.relative(ENGINE, path.resolve(ENGINE, path.dirname(file), m[1] as string)));
    }
    for (const m of source.matchAll(/^import\s+'(\.[^']+\.ts)'/gm)) {
      visit(path.relative(ENGINE, path.resolve(ENGINE, path.dirname(file), m[1] as string)));
    }
  };
  visit(entry);
  return seen;
}

describe('the task-worker entry', () => {
  it('loads neither onnxruntime, the training stack nor the document readers before a job needs them', () => {
    const train = staticImports('tasks/train-task.ts');
    // The walk sees what a model task loads (so its absence below means something).
    expect(train.has('runtime/session.ts'), 'train-task.ts reaches runtime/session.ts').toBe(true);
    expect(staticImports('distill/transfer-guard.ts').has('tasks/data-load.ts')).toBe(true);

    const entry = staticImports('tasks/jobs.ts');
    expect(entry.has('distill/fingerprint-file.ts'), 'the fingerprint writer is at hand').toBe(true);
    for (const heavy of ['runtime/session.ts', 'tasks/train-task.ts', 'tasks/predict-task.ts', 'distill/task-distill.ts', 'tasks/data-load.ts']) {
      expect(entry.has(heavy), `jobs.ts loads ${heavy} up front`).toBe(false);
    }
  });
});
