// Ctrl-C during `predict` or `eval` (the task throws CancelledError at its next batch): the CLI
// says nothing was written and exits with 130, as a stop the user asked for, not an error. A
// training-like run stopped by Ctrl-C keeps its checkpoint, says so, and exits with 130 too, so
// a script does not carry on as if it had finished.
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { CancelledError } from '../tasks/batching.ts';
import type * as PredictTask from '../tasks/predict-task.ts';
import type * as TrainTask from '../tasks/train-task.ts';
import type * as TaskDistill from '../distill/task-distill.ts';
import type * as Pretrain from '../pretrain/pretrain.ts';

vi.mock('../tasks/predict-task.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof PredictTask>()),
  predict: vi.fn(() => Promise.reject(new CancelledError())),
  evaluate: () => Promise.reject(new CancelledError()),
}));
vi.mock('../tasks/train-task.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof TrainTask>()),
  train: vi.fn(() => Promise.resolve({ status: 'cancelled', out: '/o', checkpointDir: '/o/checkpoint' })),
}));
vi.mock('../distill/task-distill.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof TaskDistill>()),
  distillTask: vi.fn(() => Promise.resolve({ status: 'cancelled', out: '/s', steps: 7, checkpointDir: '/s/checkpoint' })),
}));
vi.mock('../pretrain/pretrain.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof Pretrain>()),
  pretrain: () => Promise.resolve({ status: 'time-limit', out: '/p', steps: 9 }),
}));
const { main } = await import('./main.ts');

let stderr: string[] = [];
let stdout: string[] = [];
beforeEach(() => {
  stderr = [];
  stdout = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void stderr.push(a.join(' ')));
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void stdout.push(a.join(' ')));
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

describe('predict --keep-finished stopped by Ctrl-C', () => {
  const args = ['predict', '--model', '/m', '--input', '/in', '--out', '/tmp/x.jsonl', '--format', 'jsonl'];
  /** A run that Ctrl-C stops after `done` of 25 documents; what it was asked to keep. */
  async function stoppedAfter(done: number, extra: string[]): Promise<{ code: number; keeps: boolean }> {
    const { predict } = await import('../tasks/predict-task.ts');
    let keeps = false;
    vi.mocked(predict).mockImplementationOnce((_args, ctx) => {
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      process.emit('SIGINT', 'SIGINT');
      keeps = ctx?.isCancelled() === true && ctx.keepsFinished?.() === true;
      if (!keeps) return Promise.reject(new CancelledError());
      const notRun = Array.from({ length: 25 - done }, (_, i) => ({ id: `ward/n${done + i}`, source: `ward/n${done + i}.txt` }));
      const r = { documents: done, words: 0, entities: 0, relations: 0, seconds: 1, documentsPerSec: 1, wordsPerSec: 1, written: ['/tmp/x.jsonl'], issues: [] };
      return Promise.resolve({ ...r, stopped: { planned: 25, notRun } });
    });
    return { code: await main([...args, ...extra]), keeps };
  }

  it('writes the finished documents, names those not run, and exits with 130', async () => {
    const r = await stoppedAfter(3, ['--keep-finished']);
    expect(r).toEqual({ code: 130, keeps: true });
    const names = Array.from({ length: 20 }, (_, i) => `ward/n${3 + i} (ward/n${3 + i}.txt)`).join(', ');
    expect(stdout[1]).toBe(`stopped: wrote 3 of 25 documents; not run: ${names}, and 2 more`);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('without the flag still writes nothing', async () => {
    expect(await stoppedAfter(3, [])).toEqual({ code: 130, keeps: false });
    expect(stderr).toEqual(['benchtop: stopped; nothing was written']);
  });
});

describe('a stopped training run', () => {
  it('says where its checkpoint is and exits with 130, not 0', async () => {
    expect(await main(['train', 'ner', '--preset', 'small-2L-128', '--train', '/t.tsv', '--out', '/o'])).toBe(130);
    expect(stdout).toEqual(['stopped; checkpoint saved in /o/checkpoint. Run the same command again to resume.']);
    expect(stderr).toEqual([]);
    stdout = [];
    const distill = ['distill', '--task', 'ner', '--teacher', '/t', '--transfer', 'random', '--student-preset', 'small-2L-128', '--out', '/s'];
    expect(await main(distill)).toBe(130);
    expect(stdout).toEqual(['cancelled at step 7: run the same command again to resume']);
  });

  it('stopped while its data was encoded, it says nothing was saved', async () => {
    // A cancel before the first checkpoint used to claim one "saved in /o".
    const { train } = await import('../tasks/train-task.ts');
    vi.mocked(train).mockResolvedValueOnce({ status: 'cancelled', out: '/o' });
    expect(await main(['train', 're', '--preset', 'small-2L-128', '--train', '/t.tsv', '--out', '/o'])).toBe(130);
    expect(stdout).toEqual(['stopped before the first training step; nothing was saved']);
    // distill stopped while its transfer text or private data was encoded: no checkpoint either.
    const { distillTask } = await import('../distill/task-distill.ts');
    vi.mocked(distillTask).mockResolvedValueOnce({ status: 'cancelled', out: '/s', steps: 0 });
    stdout = [];
    expect(await main(['distill', '--task', 're', '--teacher', '/t', '--transfer', 'random', '--student-preset', 'small-2L-128', '--out', '/s'])).toBe(130);
    expect(stdout).toEqual(['stopped before the first step; nothing was saved']);
  });

  it('exits with 0 when it stopped at the --max-minutes limit the user set', async () => {
    expect(await main(['pretrain', '--preset', 'small-2L-128', '--text', '/x.txt', '--out', '/p', '--max-minutes', '1'])).toBe(0);
    expect(stdout).toEqual(['time-limit at step 9: run the same command again to resume']);
  });
});

describe('SIGTERM and SIGHUP', () => {
  it('stop a training run as Ctrl-C does, keeping its checkpoint (they used to end it where it stood)', async () => {
    const { train } = await import('../tasks/train-task.ts');
    // SIGHUP's handler silences write errors on stdout and stderr (the terminal is gone).
    const streams = [process.stdout, process.stderr];
    const listeners = streams.map((s) => s.listeners('error') as ((e: Error) => void)[]);
    onTestFinished(() => streams.forEach((s, i) => (s.removeAllListeners('error'), listeners[i]?.forEach((l) => s.on('error', l)))));
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      vi.mocked(train).mockImplementationOnce((_args, ctx) => {
        process.emit(signal, signal);
        return Promise.resolve(ctx?.isCancelled?.() === true ? { status: 'cancelled', out: '/o', checkpointDir: '/o/checkpoint' } : { status: 'completed', out: '/o' });
      });
      stdout = [];
      expect(await main(['train', 'ner', '--preset', 'small-2L-128', '--train', '/t.tsv', '--out', '/o'])).toBe(130);
      expect(stdout).toEqual(['stopped; checkpoint saved in /o/checkpoint. Run the same command again to resume.']);
      expect(process.listenerCount(signal)).toBe(0); // the handlers went with the run
    }
  });
});
