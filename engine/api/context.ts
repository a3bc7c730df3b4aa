// What every handler gets: the open workspace, where things live, and the event emitter the
// transports subscribe to.
import type { Workspace } from '../store/db.ts';
import type { EventName, Events } from './contract.ts';

export interface ApiContext {
  readonly ws: Workspace;
  /** The data folder (workspace.sqlite, models/, runs/, settings.json). */
  readonly dataDir: string;
  /** Read-only assets shipped with the app (demo documents). */
  readonly resourcesDir: string;
  readonly version: string;
  emit<K extends EventName>(name: K, payload: Events[K]): void;
}
