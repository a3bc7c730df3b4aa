// The Export panel's job: progress of its own export only, Cancel, and a cancellation said as
// such (not as a failed export), against a fake engine answered by hand.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExportProgress } from '../../../engine/api/contract.ts';
import { FakeApiError, type HandCall, handAnsweredCall } from '../../lib/test-hand-api.ts';

/** Requests the test answers by hand. */
const calls: HandCall[] = [];
let emit: (p: ExportProgress) => void = () => {};
vi.mock('../../lib/api.ts', () => ({
  ApiError: FakeApiError,
  call: vi.fn(handAnsweredCall(calls)),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: (name: string, listener: (p: ExportProgress) => void) => {
    if (name === 'documents:export-progress') emit = listener;
    return () => {};
  },
}));
const { ExportJob } = await import('./export-job.svelte.ts');
const { toasts } = await import('../../lib/state/toasts.svelte.ts');

const ARGS = { projectId: 1, format: 'jsonl' as const, outPath: '/home/me/out.jsonl' };
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  calls.length = 0;
  toasts.items = [];
});

describe('ExportJob', () => {
  it('shows the progress of its own export and reports the result', async () => {
    const job = new ExportJob();
    job.listen();
    const running = job.run(ARGS);
    const [name, args, resolve] = calls[0]!;
    expect(name).toBe('documents:export');
    expect(args).toMatchObject(ARGS);
    const exportId = args['exportId'] as string;
    expect(exportId).toMatch(/\S/);
    emit({ exportId: 'another', projectId: 1, documentsDone: 5, documentsTotal: 9 });
    expect(job.progress).toBeNull();
    emit({ exportId, projectId: 1, documentsDone: 200, documentsTotal: 592 });
    expect(job.progress?.documentsDone).toBe(200);
    resolve({ documents: 592, written: [ARGS.outPath], issues: [] });
    await running;
    expect(job.report?.documents).toBe(592);
    expect(job.isBusy).toBe(false);
    expect(job.error).toBeNull();
  });

  it('cancels its export and says so, not as an error; a second run starts clean', async () => {
    const job = new ExportJob();
    const running = job.run(ARGS);
    const exportId = calls[0]![1]['exportId'];
    const cancelling = job.cancel();
    expect(job.isCancelling).toBe(true);
    expect(calls[1]?.slice(0, 2)).toEqual(['documents:cancel-export', { exportId }]);
    calls[1]![2]({ isCancelling: true });
    await cancelling;
    calls[0]![3](new FakeApiError('cancelled', 'The export was cancelled; nothing was written.'));
    await running;
    expect(job).toMatchObject({ wasCancelled: true, error: null, isBusy: false, isCancelling: false });

    const again = job.run(ARGS);
    expect(calls[2]![1]['exportId']).not.toBe(exportId);
    expect(job.wasCancelled).toBe(false);
    calls[2]![3](new FakeApiError('exists', `${ARGS.outPath} exists; choose Replace to write over it.`));
    await again;
    expect(job).toMatchObject({ wasCancelled: false, canReplace: true, error: `${ARGS.outPath} exists; choose Replace to write over it.` });
  });

  it('keeps the outcome when Cancel came too late, and shows a closing engine as an error', async () => {
    const job = new ExportJob();
    const running = job.run(ARGS);
    const cancelling = job.cancel();
    calls[0]![2]({ documents: 3, written: [ARGS.outPath], issues: [] });
    calls[1]![2]({ isCancelling: false });
    await Promise.all([running, cancelling]);
    await settle();
    expect(job).toMatchObject({ wasCancelled: false, isCancelling: false, error: null });
    expect(job.report?.documents).toBe(3);

    // 'cancelled' that nobody asked for (Benchtop closing) is an outcome to show.
    const closed = job.run(ARGS);
    calls[2]![3](new FakeApiError('cancelled', 'Benchtop closed during the export; nothing was written.'));
    await closed;
    expect(job).toMatchObject({ wasCancelled: false, error: 'Benchtop closed during the export; nothing was written.' });
  });

  it('says how an export ended in a toast once its panel was closed, and only then', async () => {
    const shown = new ExportJob();
    const kept = shown.run(ARGS);
    calls[0]![2]({ documents: 1, written: [ARGS.outPath], issues: [] });
    await kept;
    expect(toasts.items).toEqual([]); // the panel shows it

    const job = new ExportJob();
    const done = job.run(ARGS);
    job.detach(); // the panel closes mid-export
    calls[1]![2]({ documents: 35_292, written: [ARGS.outPath], issues: [] }); // as a whole large project
    await done;
    const failed = job.run(ARGS);
    calls[2]![3](new FakeApiError('invalid', `${ARGS.outPath}: the disk is full; nothing was written.`));
    await failed;
    expect(toasts.items.map((t) => [t.kind, t.text])).toEqual([
      ['success', `Exported 35,292 documents to ${ARGS.outPath}.`],
      ['error', `Nothing was exported to ${ARGS.outPath}: ${ARGS.outPath}: the disk is full; nothing was written.`],
    ]);
  });
});

