// The document list's paging on a large project: the first and last pages in one step, a page
// left past the end (its documents left the filter) falls back to the new last page, and the
// editor's previous/next go on across page ends.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DocumentSummary } from '../../../engine/api/contract.ts';

/** A project of `size` documents, served a page at a time like documents:list. */
let size = 0;
const requests: { offset: number; limit: number }[] = [];
let lastArgs: Record<string, unknown> = {};
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string, args: { offset: number; limit: number }) => {
    if (name !== 'documents:list') return Promise.resolve([]);
    requests.push({ offset: args.offset, limit: args.limit });
    lastArgs = args;
    const ids = Array.from({ length: Math.max(0, Math.min(args.limit, size - args.offset)) }, (_, i) => args.offset + i + 1);
    return Promise.resolve({ total: size, offset: args.offset, items: ids.map((id) => ({ id }) as DocumentSummary) });
  }),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const { documents } = await import('./documents.svelte.ts');

beforeEach(() => {
  requests.length = 0;
});

describe('documents paging', () => {
  it('goes to the last and first page in one request each', async () => {
    size = 35_000;
    await documents.load();
    documents.pageTo('last');
    await vi.waitFor(() => expect(documents.items.at(-1)?.id).toBe(35_000));
    expect(documents.offset).toBe(34_950);
    expect(documents.items).toHaveLength(50);
    documents.pageTo('first');
    await vi.waitFor(() => expect(documents.items[0]?.id).toBe(1));
    expect(requests.map((r) => r.offset)).toEqual([0, 34_950, 0]);
  });

  it('shows the new last page when the one shown has emptied', async () => {
    size = 1_234;
    await documents.load();
    documents.pageTo('last');
    await vi.waitFor(() => expect(documents.items).toHaveLength(34));
    expect(documents.offset).toBe(1_200);
    size = 1_190; // the last 44 were marked Annotated under a "New" filter
    await documents.load();
    expect(documents.offset).toBe(1_150);
    expect(documents.items.map((d) => d.id)).toEqual(Array.from({ length: 40 }, (_, i) => 1_151 + i));
    expect(documents.total).toBe(1_190);
  });

  it('goes to the last page of a search just typed, not of the list before it', async () => {
    size = 534;
    documents.showAll();
    await vi.waitFor(() => expect(documents.total).toBe(534));
    documents.setSearch('test-1');
    size = 160; // what the search matches, not known until its answer
    documents.pageTo('last'); // pressed within the search's 200 ms
    await vi.waitFor(() => expect(documents.items.at(-1)?.id).toBe(160));
    expect([documents.offset, documents.total]).toEqual([150, 160]);
    documents.setSearch('');
    size = 534;
    documents.pageTo('last');
    await vi.waitFor(() => expect(documents.items.at(-1)?.id).toBe(534));
    expect(documents.offset).toBe(500);
    await new Promise((r) => setTimeout(r, 250)); // the search's own load finds the same page
    expect(documents.offset).toBe(500);
    documents.showAll();
  });

  it('steps from the last document of a page to the first of the next, and back', async () => {
    size = 120;
    documents.pageTo('first');
    await vi.waitFor(() => expect(documents.items[0]?.id).toBe(1));
    expect(documents.hasNeighbour(50, 1)).toBe(true);
    expect(documents.hasNeighbour(1, -1)).toBe(false);
    expect((await documents.step(50, 1))?.id).toBe(51);
    expect(documents.offset).toBe(50);
    expect((await documents.step(51, -1))?.id).toBe(50);
    expect(documents.offset).toBe(0);
    documents.pageTo('last');
    await vi.waitFor(() => expect(documents.items.at(-1)?.id).toBe(120));
    expect(documents.hasNeighbour(120, 1)).toBe(false);
    expect(await documents.step(120, 1)).toBeUndefined();
    expect((await documents.step(110, 1))?.id).toBe(111);
  });

  it('shows all documents again from an empty search: no words, no filter, the first page', async () => {
    size = 500;
    documents.pageTo('last');
    documents.setFilter('annotated');
    documents.setStatus('new');
    documents.setDataset(7);
    documents.setSearch('no such word');
    expect(documents.isFiltered).toBe(true);
    documents.showAll();
    await vi.waitFor(() => expect(documents.items[0]?.id).toBe(1));
    expect([documents.search, documents.filter, documents.status, documents.datasetId, documents.offset]).toEqual(['', 'all', 'any', null, 0]);
    expect(documents.isFiltered).toBe(false);
    expect(lastArgs).toEqual({ projectId: 1, filter: 'all', offset: 0, limit: 50 });
    // The search typed just before is not sent 200 ms later.
    await new Promise((r) => setTimeout(r, 250));
    expect(lastArgs).not.toHaveProperty('search');
  });

  it('lists one dataset from the first page, with the search and the other filters', async () => {
    size = 500;
    documents.pageTo('last');
    await vi.waitFor(() => expect(documents.offset).toBe(450));
    documents.setFilter('annotated');
    documents.setDataset(3);
    await vi.waitFor(() => expect(lastArgs).toMatchObject({ datasetId: 3 }));
    expect(lastArgs).toEqual({ projectId: 1, filter: 'annotated', offset: 0, limit: 50, datasetId: 3 });
    expect(documents.isFiltered).toBe(true);
    documents.page(1);
    await vi.waitFor(() => expect(lastArgs).toMatchObject({ offset: 50 }));
    expect(lastArgs).toMatchObject({ datasetId: 3, filter: 'annotated' });
    documents.setDataset(null);
    await vi.waitFor(() => expect(lastArgs).not.toHaveProperty('datasetId'));
    expect(lastArgs).toMatchObject({ offset: 0, filter: 'annotated' });
    documents.showAll();
  });
});
