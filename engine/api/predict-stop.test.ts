// Stop pressed on the Run screen while a file run's worker was writing its output: the files were
// written, yet the run ended 'cancelled' and the screen said "Stopped; nothing was saved". A
// result whose output is written now stands (completed, with its summary); a stop that comes
// before anything is written still ends the run cancelled.
import { describe, expect, it, vi } from 'vitest';
import type { ApiContext } from './context.ts';
import type { JobInfo } from './dto-tasks.ts';
import { JobRegistry } from './job-registry.ts';
import { runJob } from './predict.ts';

/** Runs a job whose worker answers `written` after Stop was pressed; its recorded end, and whether its result was taken. */
async function stoppedWhileWriting(written: string[]): Promise<{ info: JobInfo; isTaken: boolean }> {
  const jobs = new JobRegistry();
  const ctx = { jobs, emit: () => undefined } as unknown as ApiContext;
  let answer: (r: { written: string[] }) => void = () => undefined;
  const result = new Promise<{ written: string[] }>((r) => (answer = r));
  const ended: JobInfo[] = [];
  let isTaken = false;
  const jobId = runJob(
    ctx,
    { kind: 'predict', projectId: null, input: '/notes', modelName: 'NER' },
    [],
    () => ({ result, cancel: () => undefined, terminate: () => Promise.resolve() }),
    () => {
      isTaken = true;
      return {};
    },
    (info) => ended.push(info),
    (r) => r.written.length > 0,
  );
  expect(jobs.cancel(jobId)).toBe(true);
  answer({ written });
  await vi.waitFor(() => expect(ended).toHaveLength(1));
  return { info: ended[0]!, isTaken };
}

describe('a stop that comes while the output is written', () => {
  it('leaves the run completed, with what it wrote', async () => {
    const { info, isTaken } = await stoppedWhileWriting(['/out.jsonl']);
    expect(info.status).toBe('completed');
    expect(isTaken).toBe(true);
  });

  it('still cancels a run that wrote nothing', async () => {
    const { info, isTaken } = await stoppedWhileWriting([]);
    expect(info.status).toBe('cancelled');
    expect(isTaken).toBe(false);
  });
});
