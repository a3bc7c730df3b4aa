// The task-worker entry (jobs.ts) loads a task's modules only when a job needs them: the worker that
// writes a finished run's fingerprints must not load onnxruntime (runtime/session.ts), the training
// stack or the document readers first. Checked on the source's static imports (type-only ones left out).
import { describe, expect, it } from 'vitest';
import { staticImports } from '../../tests/static-imports.ts';

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
