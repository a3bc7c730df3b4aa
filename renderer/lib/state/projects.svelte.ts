// Projects and the label schema of the open project.
import type {
  ApiErrorInfo,
  EntityType,
  LabelSchema,
  ProjectInfo,
  RelationType,
} from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../api.ts';
import { app } from './app.svelte.ts';

class Projects {
  list = $state.raw<ProjectInfo[]>([]);
  schema = $state.raw<LabelSchema>({ entityTypes: [], relationTypes: [] });
  /**
   * The project `schema` is of (null: none yet). Just after another project is opened it is still
   * the previous one's: the editor waits for it, and makes its rows afresh when it changes.
   */
  schemaProjectId = $state<number | null>(null);
  isLoading = $state(true);
  error = $state<string | null>(null);
  schemaError = $state<string | null>(null);
  /**
   * Why the documents of deleted projects are still in the workspace file (a damaged page, a full
   * disk): the engine could not remove them. Null while there is none.
   */
  deletionProblem = $state.raw<ApiErrorInfo | null>(null);

  /**
   * The last type renamed here (`seq` counts them): a relation row keeps its unsaved ticks, and
   * gives a renamed entity type's tick its new name.
   */
  lastRename = $state.raw<{ seq: number; kind: 'entity' | 'relation'; from: string; to: string } | null>(null);

  current = $derived(this.list.find((p) => p.id === app.projectId) ?? null);

  constructor() {
    on('workspace:changed', (c) => {
      if (c.what === 'projects' || c.what === 'documents') void this.refresh();
      if (c.what === 'schema' && c.projectId === app.projectId) void this.loadSchema();
    });
  }

  async refresh(): Promise<void> {
    try {
      const [list, { problem }] = await Promise.all([
        call('projects:list', {}),
        call('projects:deletion-problem', {}),
      ]);
      this.list = list;
      this.deletionProblem = problem;
      this.error = null;
      if (this.current === null && this.list.length > 0) app.openProject(this.list[0]!.id);
      if (this.list.length === 0) app.openProject(null);
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.isLoading = false;
    }
    await this.loadSchema();
  }

  async loadSchema(): Promise<void> {
    const projectId = app.projectId;
    if (projectId === null) {
      this.schema = { entityTypes: [], relationTypes: [] };
      this.schemaProjectId = null;
      return;
    }
    try {
      const schema = await call('schema:get', { projectId });
      if (app.projectId !== projectId) return; // another project was opened meanwhile: its answer shows
      this.schema = schema;
      this.schemaProjectId = projectId;
      this.schemaError = null;
    } catch (err) {
      this.schemaError = messageOf(err);
    }
  }

  async open(projectId: number): Promise<void> {
    app.openProject(projectId);
    await this.loadSchema();
  }

  /** Creates a project and opens it; throws an ApiError with a message to show. */
  async create(name: string, template: 'empty' | 'biomedical'): Promise<ProjectInfo> {
    const p = await call('projects:create', { name, template });
    this.list = await call('projects:list', {});
    await this.open(p.id);
    return p;
  }

  /** Renames a project; throws an ApiError with a message to show (a name taken, say). */
  async rename(projectId: number, name: string): Promise<void> {
    await call('projects:update', { projectId, name });
    this.list = await call('projects:list', {});
  }

  async remove(projectId: number): Promise<void> {
    await call('projects:delete', { projectId });
    if (app.projectId === projectId) app.openProject(null);
    await this.refresh();
  }

  /**
   * `isNew`: the Add row, refused when a type of that name exists (rather than changing it).
   * `previous`: the type as the row last saw it, refused when another window changed it since.
   */
  async saveEntityType(t: EntityType, isNew = false, previous?: EntityType): Promise<void> {
    if (app.projectId === null) return;
    this.schema = await call('schema:save-entity-type', {
      projectId: app.projectId,
      entityType: t,
      ...(isNew && { isNew }),
      ...(previous !== undefined && { previous }),
    });
  }

  /** Removes a type; one in use is refused (a 'conflict' saying how many) unless `removeAnnotations`. */
  async deleteEntityType(name: string, removeAnnotations = false): Promise<void> {
    if (app.projectId === null) return;
    this.schema = await call('schema:delete-entity-type', {
      projectId: app.projectId,
      name,
      ...(removeAnnotations && { removeAnnotations: true }),
    });
  }

  /** As saveEntityType. */
  async saveRelationType(t: RelationType, isNew = false, previous?: RelationType): Promise<void> {
    if (app.projectId === null) return;
    this.schema = await call('schema:save-relation-type', {
      projectId: app.projectId,
      relationType: t,
      ...(isNew && { isNew }),
      ...(previous !== undefined && { previous }),
    });
  }

  /**
   * Renames a type; its annotations (and the relation rules naming an entity type) take the new
   * name. Throws an ApiError with a message to show (a name taken, say).
   */
  async renameType(kind: 'entity' | 'relation', name: string, newName: string): Promise<void> {
    if (app.projectId === null) return;
    this.schema = await call('schema:rename-type', { projectId: app.projectId, kind, name, newName });
    this.lastRename = { seq: (this.lastRename?.seq ?? 0) + 1, kind, from: name, to: newName.trim() };
  }

  /**
   * The type of that kind a rename to `newName` would merge `name` into: one with that very name,
   * or one it differs from only in case, accent encoding or spacing (as the engine compares them).
   */
  mergeTarget(kind: 'entity' | 'relation', name: string, newName: string): string | undefined {
    const key = (n: string): string => n.normalize('NFC').toLowerCase().trim().replace(/\s+/g, ' ');
    const others = (kind === 'entity' ? this.schema.entityTypes : this.schema.relationTypes).map((t) => t.name).filter((n) => n !== name);
    return others.find((n) => n === newName.trim()) ?? others.find((n) => key(n) === key(newName));
  }

  /**
   * Merges type `name` into type `into` (the engine asked first, 'exists'): its annotations take
   * that type, and relation rules naming it name that type.
   */
  async mergeType(kind: 'entity' | 'relation', name: string, into: string): Promise<void> {
    if (app.projectId === null) return;
    this.schema = await call('schema:rename-type', { projectId: app.projectId, kind, name, newName: into, merge: true });
    this.lastRename = { seq: (this.lastRename?.seq ?? 0) + 1, kind, from: name, to: into };
  }

  /** Removes a relation type; one in use is refused (a 'conflict' saying how many) unless `removeRelations`. */
  async deleteRelationType(name: string, removeRelations = false): Promise<void> {
    if (app.projectId === null) return;
    this.schema = await call('schema:delete-relation-type', {
      projectId: app.projectId,
      name,
      ...(removeRelations && { removeRelations: true }),
    });
  }
}

export const projects = new Projects();
