// The documents ticked on the Documents screen for Delete N documents…: a box per row, Shift
// for a range of the page from the box last clicked, and the header's box for every document the
// search and filters show, on every page (their ids are listed 1,000 at a time). Deleting sends
// 1,000 ids a request, the most documents:delete takes.
import { ApiError, call, on } from '../../lib/api.ts';
import type { DocumentQuery } from '../../lib/state/documents.svelte.ts';
import { countOf, formatNumber } from '../../lib/format.ts';

/** Ids a documents:list or documents:delete request carries at most. */
export const CHUNK = 1000;

/** A row as the list shows it: what Delete 1 document… names it by (its name and dataset). */
export interface SelectableRow {
  id: number;
  externalId?: string;
  datasetId?: number;
}

export class DocumentSelection {
  ids = $state.raw<ReadonlySet<number>>(new Set());
  /** The header's box is listing the ids of every page. */
  isSelectingAll = $state(false);
  /** While deleting: how many of the selected documents the requests so far took. */
  progress = $state.raw<{ done: number; total: number } | null>(null);
  /** The row clicked last: Shift+click ticks (or unticks) the rows from it. */
  #anchor: number | null = null;
  #seq = 0;
  /** The name and dataset of each row ticked, as the list showed them. */
  #named = new Map<number, { externalId: string; datasetId: number }>();

  get count(): number {
    return this.ids.size;
  }

  /** "Deleted 2,000 of 14,396…" while a deletion takes more than one request. */
  get progressLabel(): string {
    const p = this.progress;
    return p === null || p.total <= CHUNK ? '' : `Deleted ${formatNumber(p.done)} of ${formatNumber(p.total)}…`;
  }

  /** The one document selected, by its name and dataset (null when not one, or not listed). */
  get single(): { externalId: string; datasetId: number } | null {
    if (this.ids.size !== 1) return null;
    const [id] = this.ids;
    return this.#named.get(id!) ?? null;
  }

  has(id: number): boolean {
    return this.ids.has(id);
  }

  /**
   * Ticks a row, or unticks it; with `isRange`, the rows of `page` from the one clicked last to
   * it take the same state (the clicked box's new state, so the box and the selection agree).
   */
  toggle(id: number, page: readonly SelectableRow[], isRange: boolean): void {
    const isOn = !this.ids.has(id);
    this.#remember(page);
    const rows = page.map((d) => d.id);
    const from = this.#anchor === null ? -1 : rows.indexOf(this.#anchor);
    const to = rows.indexOf(id);
    const picked = isRange && from >= 0 && to >= 0 ? rows.slice(Math.min(from, to), Math.max(from, to) + 1) : [id];
    this.#set(picked, isOn);
    this.#anchor = id;
  }

  /** Selects every document of the query (all its pages); a clear() meanwhile wins. */
  async selectAll(query: DocumentQuery): Promise<void> {
    const seq = ++this.#seq;
    this.isSelectingAll = true;
    try {
      const ids = new Set<number>();
      // Page after page by id, not by offset: documents another window deletes meanwhile would
      // shift the later pages, and as many documents would be skipped.
      // shift the later pages, and as many documents would be skipped. Ids start at 1.
      for (let afterId = 0; ; ) {
        const page = await call('documents:list', { ...query, afterId, limit: CHUNK });
        if (seq !== this.#seq) return;
        for (const d of page.items) ids.add(d.id);
        this.#remember(page.items);
        const last = page.items.at(-1);
        if (page.items.length < CHUNK || last === undefined) break;
        afterId = last.id;
      }
      this.ids = ids;
      this.#anchor = null;
    } finally {
      if (seq === this.#seq) this.isSelectingAll = false;
    }
  }

  clear(): void {
    this.#seq++; // a select-all still listing is dropped
    this.isSelectingAll = false;
    this.ids = new Set();
    this.#anchor = null;
    this.#named.clear();
  }

  /**
   * Deletes the selected documents of the project, CHUNK ids a request, and returns how many
   * went (fewer when another window deleted some). Those deleted leave the selection; a refusal
   * after the first request (an export started meanwhile) says how many went before it.
   */
  async delete(projectId: number): Promise<number> {
    const ids = [...this.ids];
    let deleted = 0;
    if (ids.length === 0) return 0; // documents:delete takes at least one id
    this.progress = { done: 0, total: ids.length };
    try {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        try {
          deleted += (await call('documents:delete', { projectId, documentIds: chunk })).deletedDocuments;
        } catch (err) {
          if (i === 0 || !(err instanceof ApiError)) throw err;
          const left = ids.length - i;
          throw new ApiError(
            err.code,
            `${formatNumber(deleted)} of the ${countOf(ids.length, 'document')} ${deleted === 1 ? 'was' : 'were'} deleted; the other ${formatNumber(left)} ${left === 1 ? 'is' : 'are'} still selected. ${err.message}`,
          );
        }
        this.#set(chunk, false);
        this.progress = { done: i + chunk.length, total: ids.length };
      }
      return deleted;
    } finally {
      this.progress = null;
    }
  }

  /** Follows deletions made elsewhere (another window, the editor); returns the unsubscriber. */
  listen(projectId: () => number | null): () => void {
    return on('documents:deleted', (d) => {
      if (d.projectId !== projectId()) return;
      // A deleted dataset's documents are not known here: nothing stays selected.
      if (d.documentIds === undefined) this.clear();
      else this.#set(d.documentIds, false);
    });
  }

  #remember(rows: readonly SelectableRow[]): void {
    for (const r of rows) {
      if (r.externalId !== undefined && r.datasetId !== undefined) this.#named.set(r.id, { externalId: r.externalId, datasetId: r.datasetId });
    }
  }

  #set(ids: readonly number[], isOn: boolean): void {
    const next = new Set(this.ids);
    for (const id of ids) {
      if (isOn) next.add(id);
      else next.delete(id);
    }
    this.ids = next;
  }
}
