import { describe, expect, it, vi } from 'vitest';

const written = new Map<string, string>();
vi.mock('../../lib/api.ts', () => {
  class ApiError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }
  return {
    ApiError,
    // A file system of one place: a path already written is refused without `overwrite`.
    call: vi.fn((name: string, a: { jobId: string; outPath: string; overwrite?: boolean }) => {
      if (name !== 'evaluate:export') return Promise.reject(new Error(`unexpected ${name}`));
      if (written.has(a.outPath) && a.overwrite !== true)
        return Promise.reject(new ApiError('exists', `${a.outPath} exists; choose Replace to write over it.`));
      written.set(a.outPath, a.jobId);
      return Promise.resolve({ path: a.outPath });
    }),
    messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  };
});
const { call } = await import('../../lib/api.ts');
const { ReportExport } = await import('./report-export.svelte.ts');
/** The score table's rows by type as sorted on screen. */
const ORDER = ['Gene', 'Disease', 'Chemical'];

describe('saving an evaluation', () => {
  it('keeps a file already there until Replace, which is only for the file refused', async () => {
    written.set('/r/old.csv', 'mine');
    const exp = new ReportExport();
    exp.outPath = ' /r/old.csv ';
    await exp.save('e1', ORDER);
    expect({ error: exp.error, canReplace: exp.canReplace, saved: exp.saved }).toEqual({
      error: '/r/old.csv exists; choose Replace to write over it.',
      canReplace: true,
      saved: null,
    });
    expect(written.get('/r/old.csv')).toBe('mine');
    // Another file: the offer to replace the first one goes.
    exp.outPath = '/r/new.csv';
    expect(exp.canReplace).toBe(false);
    exp.outPath = '/r/old.csv';
    await exp.save('e1', ORDER);
    expect(exp.canReplace).toBe(true);
    await exp.save('e1', ORDER, true);
    expect({ error: exp.error, canReplace: exp.canReplace, saved: exp.saved }).toEqual({ error: null, canReplace: false, saved: '/r/old.csv' });
    expect(written.get('/r/old.csv')).toBe('e1');
    expect(vi.mocked(call).mock.calls.at(-1)).toEqual(['evaluate:export', { jobId: 'e1', format: 'csv', outPath: '/r/old.csv', overwrite: true, order: ORDER }]);
    exp.format = 'json';
    expect(exp.saved).toBeNull();
  });

  it("gives a CSV the score table's order; JSON, the whole report, none", async () => {
    const exp = new ReportExport();
    exp.outPath = '/r/sorted.csv';
    await exp.save('e2', ORDER);
    expect(vi.mocked(call).mock.calls.at(-1)).toEqual(['evaluate:export', { jobId: 'e2', format: 'csv', outPath: '/r/sorted.csv', order: ORDER }]);
    exp.format = 'json';
    exp.outPath = '/r/report.json';
    await exp.save('e2', ORDER);
    expect(vi.mocked(call).mock.calls.at(-1)).toEqual(['evaluate:export', { jobId: 'e2', format: 'json', outPath: '/r/report.json' }]);
  });

  it('asks nothing without a file to write', async () => {
    vi.mocked(call).mockClear();
    const exp = new ReportExport();
    exp.outPath = '   ';
    await exp.save('e1', ORDER);
    expect(vi.mocked(call)).not.toHaveBeenCalled();
  });
});
