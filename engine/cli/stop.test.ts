// Ctrl-C during `predict` or `eval` (the task throws CancelledError at its next batch): the CLI
// says nothing was written and exits with 130, as a stop the user asked for, not an error.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CancelledError } from '../tasks/batching.ts';
import type * as PredictTask from '../tasks/predict-task.ts';

vi.mock('../tasks/predict-task.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof PredictTask>()),
  predict: () => Promise.reject(new CancelledError()),
  evaluate: () => Promise.reject(new CancelledError()),
}));
const { main } = await import('./main.ts');

let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void stderr.push(a.join(' ')));
});
afterEach(() => vi.restoreAllMocks());

describe('a stopped prediction or evaluation', () => {
  it('exits with 130 and says nothing was written', async () => {
    expect(await main(['predict', '--model', '/m', '--input', '/in', '--out', '/tmp/x.jsonl', '--format', 'jsonl'])).toBe(130);
    expect(stderr).toEqual(['benchtop: stopped; nothing was written']);
    stderr = [];
    expect(await main(['eval', 'ner', '--model', '/m', '--data', '/d.tsv'])).toBe(130);
    expect(stderr).toEqual(['benchtop: stopped; nothing was written']);
  });
});
