// The datasets of the open project (Train, Run, Evaluate and Distill choose from them).
import type { DatasetInfo } from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../api.ts';
import { app } from './app.svelte.ts';

class Datasets {
  list = $state.raw<DatasetInfo[]>([]);
  isLoading = $state(false);
  error = $state<string | null>(null);
  #projectId: number | null = null;

  constructor() {
    on('workspace:changed', (c) => {
      if (c.what === 'documents' && c.projectId === app.projectId) void this.load();
    });
  }

  /** Loads the open project's datasets (again). */
  async load(): Promise<void> {
    const projectId = app.projectId;
    this.#projectId = projectId;
    if (projectId === null) {
      this.list = [];
      return;
    }
    this.isLoading = true;
    try {
      const list = await call('datasets:list', { projectId });
      if (this.#projectId === projectId) this.list = list;
      this.error = null;
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.isLoading = false;
    }
  }

  name(id: number): string {
    return this.list.find((d) => d.id === id)?.name ?? `Dataset ${id}`;
  }
}

export const datasets = new Datasets();
