// The Documents screen's selection: rows ticked one by one or by Shift range, the header's box
// taking every page of the search, deletion in requests of at most 1,000 ids, refusals that keep
// the selection, and deletions made elsewhere, against a fake engine answered by hand.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Events } from '../../../engine/api/contract.ts';
import { FakeApiError, type HandCall, handAnsweredCall } from '../../lib/test-hand-api.ts';

/** Requests the test answers by hand. */
const calls: HandCall[] = [];
let emitDeleted: (p: Events['documents:deleted']) => void = () => {};
vi.mock('../../lib/api.ts', () => ({
  ApiError: FakeApiError,
  call: vi.fn(handAnsweredCall(calls)),
  on: (name: string, listener: (p: Events['documents:deleted']) => void) => {
    if (name === 'documents:deleted') emitDeleted = listener;
    return () => {};
  },
}));
const { DocumentSelection } = await import('./selection.svelte.ts');

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
const rows = (from: number, n: number): { id: number }[] => Array.from({ length: n }, (_, i) => ({ id: from + i }));
const sorted = (ids: ReadonlySet<number>): number[] => [...ids].sort((a, b) => a - b);

beforeEach(() => {
  calls.length = 0;
});

describe('DocumentSelection', () => {
  it('ticks rows one by one and, with Shift, the rows from the one clicked last', () => {
    const s = new DocumentSelection();
    const page = rows(10, 8);
    s.toggle(11, page, false);
    s.toggle(14, page, true);
    expect(sorted(s.ids)).toEqual([11, 12, 13, 14]);
    s.toggle(16, page, false);
    s.toggle(13, page, true); // the range takes the clicked box's new state: 13 was ticked, so off
    expect(sorted(s.ids)).toEqual([11, 12]);
    s.toggle(12, page, false);
    expect(sorted(s.ids)).toEqual([11]);
    // The row clicked last is on another page: Shift ticks the one row.
    s.toggle(30, rows(30, 5), true);
    expect(sorted(s.ids)).toEqual([11, 30]);
    s.clear();
    s.toggle(33, rows(30, 5), true); // nothing clicked since clearing: no range
    expect(sorted(s.ids)).toEqual([33]);
  });

  it('selects every page of the search and filters, 1,000 ids a request, and a clear meanwhile wins', async () => {
    const s = new DocumentSelection();
    const query = { projectId: 3, filter: 'not-annotated' as const, datasetId: 7 };
    const selecting = s.selectAll(query);
    expect(s.isSelectingAll).toBe(true);
    // Page after page by id (after the last id listed), so deletions meanwhile skip nothing.
    for (const [afterId, first] of [[0, 1], [1000, 1003]] as const) {
      await settle();
      const [name, args, resolve] = calls.at(-1)!;
      expect(name).toBe('documents:list');
      expect(args).toEqual({ ...query, afterId, limit: 1000 });
      // Two documents of the second page were deleted meanwhile: ids 1001 and 1002 are gone.
      resolve({ total: 1500, offset: 0, items: rows(first, afterId === 0 ? 1000 : 498) });
    }
    await selecting;
    expect(calls).toHaveLength(2);
    expect(s.count).toBe(1498);
    expect(s.isSelectingAll).toBe(false);

    s.clear();
    const late = s.selectAll(query);
    await settle();
    s.clear(); // the filter changed while the ids were listed
    calls[2]![2]({ total: 2, offset: 0, items: rows(1, 2) });
    await late;
    expect(s.count).toBe(0);
    expect(s.isSelectingAll).toBe(false);
  });

  it('deletes the selection in requests of at most 1,000 ids, shows progress and ends empty', async () => {
    const s = new DocumentSelection();
    s.toggle(1, rows(1, 2500), false);
    s.toggle(2500, rows(1, 2500), true);
    const deleting = s.delete(3);
    const sent: number[][] = [];
    for (const done of [1000, 2000, 2500]) {
      await settle();
      const [name, args, resolve] = calls.at(-1)!;
      expect(name).toBe('documents:delete');
      expect(args['projectId']).toBe(3);
      sent.push(args['documentIds'] as number[]);
      resolve({ deletedDocuments: (args['documentIds'] as number[]).length - (done === 2500 ? 1 : 0) });
      await settle();
      if (done < 2500) expect(s.progressLabel).toBe(`Deleted ${done.toLocaleString('en-US')} of 2,500…`);
    }
    expect(await deleting).toBe(2499); // one had been deleted by another window
    expect(sent.map((ids) => ids.length)).toEqual([1000, 1000, 500]);
    expect(new Set(sent.flat()).size).toBe(2500);
    expect(s.count).toBe(0);
    expect(s.progress).toBeNull();
    expect(await s.delete(3)).toBe(0); // nothing selected: no request (documents:delete takes one id at least)
    expect(calls).toHaveLength(3);
  });

  it("gives the engine's refusal as it is and keeps the selection; a later refusal says how many went", async () => {
    const s = new DocumentSelection();
    s.toggle(1, rows(1, 1200), false);
    s.toggle(1200, rows(1, 1200), true);
    const refusal = "An export of this project's documents is running; cancel it (or wait for it to finish), then delete the documents.";
    const first = s.delete(3);
    await settle();
    calls[0]![3](new FakeApiError('conflict', refusal));
    await expect(first).rejects.toSatisfy((e) => (e as Error).message === refusal);
    expect(s.count).toBe(1200);
    expect(s.progress).toBeNull();

    const second = s.delete(3);
    await settle();
    calls[1]![2]({ deletedDocuments: 1000 });
    await settle();
    calls[2]![3](new FakeApiError('conflict', refusal));
    await expect(second).rejects.toThrow(`1,000 of the 1,200 documents were deleted; the other 200 are still selected. ${refusal}`);
    expect(s.count).toBe(200);
    expect((calls[2]![1]['documentIds'] as number[]).every((id) => s.has(id))).toBe(true);
  });

  it('names the one document selected by its name and dataset, from another page or every page', async () => {
    const s = new DocumentSelection();
    const page = [
      { id: 1, externalId: 'PMID-1', datasetId: 7 },
      { id: 2, externalId: 'PMID-2', datasetId: 8 },
    ];
    s.toggle(1, page, false);
    s.toggle(2, page, false);
    expect(s.single).toBeNull(); // two: Delete 2 documents… counts them
    s.toggle(1, page, false);
    expect(s.single).toEqual({ externalId: 'PMID-2', datasetId: 8 });
    s.toggle(2, page, false);
    expect(s.single).toBeNull();

    const selecting = s.selectAll({ projectId: 3, filter: 'all' });
    await settle();
    calls[0]![2]({ total: 1, offset: 0, items: [{ id: 9, externalId: 'note 9', datasetId: 2 }] });
    await selecting;
    expect(s.single).toEqual({ externalId: 'note 9', datasetId: 2 });
  });

  it('follows deletions made elsewhere in the open project', () => {
    const s = new DocumentSelection();
    s.listen(() => 3);
    for (const id of [5, 6, 7]) s.toggle(id, rows(5, 3), false);
    emitDeleted({ projectId: 4, documentIds: [5] }); // another project's
    emitDeleted({ projectId: 3, documentIds: [6, 99] });
    expect(sorted(s.ids)).toEqual([5, 7]);
    emitDeleted({ projectId: 3, datasetId: 2 }); // which of them were in it is not known here
    expect(s.count).toBe(0);
  });
});
