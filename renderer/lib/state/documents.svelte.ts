// The document list of the open project: search, filters, status, dataset and paging.
import type {
  Args,
  DocumentFilter,
  DocumentStatus,
  DocumentSummary,
} from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../api.ts';
import { app } from './app.svelte.ts';

const PAGE = 50;

/** documents:list's arguments but the page. */
export type DocumentQuery = Omit<Args<'documents:list'>, 'offset' | 'limit'>;

class Documents {
  items = $state.raw<DocumentSummary[]>([]);
  total = $state(0);
  offset = $state(0);
  search = $state('');
  filter = $state<DocumentFilter>('all');
  status = $state<DocumentStatus | 'any'>('any');
  /** The one dataset shown (a project holds several: NCBI's and BC5CDR's "train"), or all. */
  datasetId = $state<number | null>(null);
  isLoading = $state(false);
  error = $state<string | null>(null);
  pageSize = PAGE;

  #timer: ReturnType<typeof setTimeout> | undefined;
  #seq = 0;

  constructor() {
    on('workspace:changed', (c) => {
      if (c.what === 'documents' && c.projectId === app.projectId) void this.load();
    });
  }

  /**
   * Loads the current page (stale answers from earlier searches are dropped); `isLast`: the last
   * page, whatever the total turns out to be.
   */
  async load(isLast = false): Promise<void> {
    if (app.projectId === null) {
      this.items = [];
      this.total = 0;
      return;
    }
    const seq = ++this.#seq;
    this.isLoading = true;
    try {
      const page = await call('documents:list', { ...this.query(app.projectId), offset: this.offset, limit: PAGE });
      if (seq !== this.#seq) return;
      const isPastEnd = page.items.length === 0 && this.offset > 0 && page.total > 0;
      if (isPastEnd || (isLast && this.offset !== this.#lastOffset(page.total))) {
        // The page is past the end (documents left the filter or were removed), or Last was
        // pressed before the total of a search just typed was known: show the last one.
        this.offset = this.#lastOffset(page.total);
        return await this.load();
      }
      this.items = page.items;
      this.total = page.total;
      this.error = null;
    } catch (err) {
      if (seq === this.#seq) this.error = messageOf(err);
    } finally {
      if (seq === this.#seq) this.isLoading = false;
    }
  }

  /** The project's documents the search and filters show (every page of them). */
  query(projectId: number): DocumentQuery {
    return {
      projectId,
      filter: this.filter,
      ...(this.search.trim() !== '' && { search: this.search }),
      ...(this.status !== 'any' && { status: this.status }),
      ...(this.datasetId !== null && { datasetId: this.datasetId }),
    };
  }

  setSearch(text: string): void {
    this.search = text;
    this.offset = 0;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.load(), 200);
  }

  setFilter(filter: DocumentFilter): void {
    this.filter = filter;
    this.offset = 0;
    void this.load();
  }

  setStatus(status: DocumentStatus | 'any'): void {
    this.status = status;
    this.offset = 0;
    void this.load();
  }

  setDataset(datasetId: number | null): void {
    this.datasetId = datasetId;
    this.offset = 0;
    void this.load();
  }

  /** Whether a search or any filter narrows the list. */
  get isFiltered(): boolean {
    return this.search.trim() !== '' || this.filter !== 'all' || this.status !== 'any' || this.datasetId !== null;
  }

  /** Forgets the search and the filters and goes back to the first page, without loading. */
  clear(): void {
    clearTimeout(this.#timer);
    this.search = '';
    this.filter = 'all';
    this.status = 'any';
    this.datasetId = null;
    this.offset = 0;
  }

  /** Clears the search and the filters and goes back to the first page (an empty result's way out). */
  showAll(): void {
    this.clear();
    void this.load();
  }

  page(dir: -1 | 1): void {
    this.offset = Math.max(0, Math.min(this.offset + dir * PAGE, Math.max(0, this.total - 1)));
    void this.load();
  }

  /** Goes to the first page, or the last (a large project has hundreds of pages). */
  pageTo(end: 'first' | 'last'): void {
    clearTimeout(this.#timer); // this load has the search typed meanwhile
    this.offset = end === 'first' ? 0 : this.#lastOffset(this.total);
    void this.load(end === 'last');
  }

  #lastOffset(total: number): number {
    return Math.max(0, Math.floor((total - 1) / PAGE) * PAGE);
  }

  /** The neighbour of a document in the loaded page (for previous/next in the editor). */
  neighbour(documentId: number, dir: -1 | 1): DocumentSummary | undefined {
    const i = this.items.findIndex((d) => d.id === documentId);
    return i < 0 ? undefined : this.items[i + dir];
  }

  /** Whether the list has a document before (after) this one, on this page or the one beside it. */
  hasNeighbour(documentId: number, dir: -1 | 1): boolean {
    const i = this.items.findIndex((d) => d.id === documentId);
    if (i < 0) return false;
    if (this.items[i + dir] !== undefined) return true;
    return dir < 0 ? this.offset > 0 : this.offset + this.items.length < this.total;
  }

  /**
   * The document before (after) this one in the list; at either end of the page the page beside
   * it is loaded, so the editor goes on through a large project without returning to the list.
   */
  async step(documentId: number, dir: -1 | 1): Promise<DocumentSummary | undefined> {
    const near = this.neighbour(documentId, dir);
    if (near !== undefined || !this.hasNeighbour(documentId, dir)) return near;
    this.offset = Math.max(0, this.offset + dir * PAGE);
    await this.load();
    if (this.error !== null) return undefined;
    return dir > 0 ? this.items[0] : this.items.at(-1);
  }
}

export const documents = new Documents();
