// The copy of its documents a training or distillation run keeps (runs/<id>/data.json, read again
// to resume it), written a few documents at a time: built and written whole it held the engine
// for seconds on a project of thousands of documents (6,000 abstracts: 0.4 s on a fast machine,
// 2.7 s on a laptop), while the app's other requests and its events waited. The file is
// JSON.stringify(data), byte for byte.
import { mkdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Document } from '../formats/types.ts';
import { bufferedWrites } from '../io/buffered-writes.ts';
import { getProject } from '../store/projects.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/** Characters of JSON put together between two writes (each write lets the event loop turn). */
const CHUNK_CHARS = 1 << 18;

/** Documents of a run, by role (as RunData in run-launcher.ts). */
export type SnapshotData = Partial<Record<'train' | 'dev' | 'private', Document[]>>;

/**
 * Writes `JSON.stringify(data)` to the new file `file` (owner-only: it holds the documents' text)
 * a chunk at a time, awaiting each write so that other requests are answered meanwhile. On a
 * failure the file may be left part-written: the caller removes the run's folder.
 */
export async function writeSnapshot(file: string, data: SnapshotData): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    const { write: put, flush } = bufferedWrites(handle, CHUNK_CHARS);
    let sep = '{';
    // In the object's own key order, leaving out what is undefined, as JSON.stringify does.
    for (const [key, docs] of Object.entries(data)) {
      if (docs === undefined) continue;
      await put(`${sep}${JSON.stringify(key)}:[`);
      sep = ',';
      for (let i = 0; i < docs.length; i++) await put(`${i === 0 ? '' : ','}${JSON.stringify(docs[i])}`);
      await put(']');
    }
    await put(sep === '{' ? '{}' : '}');
    await flush();
  } finally {
    await handle.close();
  }
}

/** The engines (their job registries) where a new run's documents are being copied. */
const starting = new WeakSet<object>();

/** Whether a new run is copying its documents (no other may start until it has started). */
export const isStarting = (ctx: ApiContext): boolean => starting.has(ctx.jobs);

/**
 * Writes a new run's documents into its folder `dir` (relative to the data folder), owner-only,
 * leaving nothing of them when it is cut short or when, meanwhile, Benchtop began to close or the
 * project was deleted (then the run is not started: an error says why). isStarting meanwhile.
 */
export async function snapshotDocuments(ctx: ApiContext, dir: string, projectId: number, data: SnapshotData): Promise<void> {
  const folder = join(ctx.dataDir, dir);
  starting.add(ctx.jobs);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    await writeSnapshot(join(folder, 'data.json'), data);
    if (ctx.jobs.isClosing) throw new ApiError('cancelled', 'Benchtop closed before the run started; nothing was kept.');
    if (!getProject(ctx.ws.read, projectId)) throw new ApiError('not-found', 'The project was deleted before the run started; nothing was kept.');
  } catch (e) {
    rmSync(folder, { recursive: true, force: true });
    throw e;
  } finally {
    starting.delete(ctx.jobs);
  }
}
