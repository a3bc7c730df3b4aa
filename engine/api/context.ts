// What every handler gets: the open workspace, where things live, the workers in flight, and
// the event emitter the transports subscribe to.
import type { Workspace } from '../store/db.ts';
import type { EventName, Events } from './contract.ts';
import type { JobRegistry } from './job-registry.ts';

export interface ApiContext {
  readonly ws: Workspace;
  /** The data folder (workspace.sqlite, models/, runs/, settings.json). */
  readonly dataDir: string;
  /** Read-only assets shipped with the app (demo documents, models/ with the default student). */
  readonly resourcesDir: string;
  readonly version: string;
  /** Training, prediction and evaluation workers in flight. */
  readonly jobs: JobRegistry;
  emit<K extends EventName>(name: K, payload: Events[K]): void;
}
