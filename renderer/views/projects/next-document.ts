// Where "Annotate" (the sidebar, Getting started) takes someone who has not opened a document
// yet: the first one still in progress, else the first new one, else the first of all. Until
// 2026-11-24 it showed the Documents list without a word, as if the click had missed.
import type { DocumentStatus } from '../../../engine/api/dto.ts';

type ListPage = (args: { projectId: number; status?: DocumentStatus; limit: number }) => Promise<{ items: { id: number }[] }>;

/** The document to open for annotation, or null when the project has none. */
export async function nextToAnnotate(projectId: number, list: ListPage): Promise<number | null> {
  for (const status of ['in-progress', 'new', undefined] as const) {
    const page = await list(status === undefined ? { projectId, limit: 1 } : { projectId, status, limit: 1 });
    if (page.items[0] !== undefined) return page.items[0].id;
  }
  return null;
}
