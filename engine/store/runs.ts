// Training runs: queued → running → completed | failed | cancelled | interrupted. A process
// killed mid-run leaves its run 'running'; opening the workspace marks those 'interrupted'.
import { type JsonValue, nowIso, parseJson, toJson } from './codec.ts';
import type { ReadDb, WriteDb } from './db.ts';
import { StoreError, must } from './errors.ts';
import { sql } from './sql.ts';

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** Why a completed run stopped where it did. */
export type RunStopReason = 'completed' | 'early-stopped' | 'time-limit' | 'max-steps';

export interface TrainingRun {
  id: string;
  projectId: number;
  task: string;
  baseModelId?: string;
  modelOutId?: string;
  config: JsonValue;
  status: RunStatus;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** Latest checkpoint, relative to the workspace folder (under runs/<id>/). */
  checkpointPath?: string;
  error?: string;
  /** Set when the run completed: all planned steps, early stopping, or a limit. */
  stopReason?: RunStopReason;
}

export interface NewRun {
  projectId: number;
  task: string;
  config: JsonValue;
  baseModelId?: string;
  id?: string;
}

/** Extra fields set together with a status change. */
export interface RunUpdate {
  error?: string;
  checkpointPath?: string;
  modelOutId?: string;
  stopReason?: RunStopReason;
}

export interface RunRow {
  id: string;
  project_id: number;
  task: string;
  base_model_id: string | null;
  model_out_id: string | null;
  config: string;
  status: RunStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  checkpoint_path: string | null;
  error: string | null;
  stop_reason: RunStopReason | null;
}

const TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  queued: ['running', 'cancelled'],
  running: ['completed', 'failed', 'cancelled', 'interrupted'],
  interrupted: ['queued', 'running', 'cancelled'],
  failed: ['queued'],
  cancelled: ['queued'],
  completed: [],
};

export const INTERRUPTED_MESSAGE = 'Benchtop stopped while this run was in progress';

/** Converts a training_runs row. */
export function fromRow(row: RunRow): TrainingRun {
  return {
    id: row.id,
    projectId: row.project_id,
    task: row.task,
    ...(row.base_model_id !== null && { baseModelId: row.base_model_id }),
    ...(row.model_out_id !== null && { modelOutId: row.model_out_id }),
    config: parseJson<JsonValue>(row.config),
    status: row.status,
    createdAt: row.created_at,
    ...(row.started_at !== null && { startedAt: row.started_at }),
    ...(row.finished_at !== null && { finishedAt: row.finished_at }),
    ...(row.checkpoint_path !== null && { checkpointPath: row.checkpoint_path }),
    ...(row.error !== null && { error: row.error }),
    ...(row.stop_reason !== null && { stopReason: row.stop_reason }),
  };
}

/** Creates a queued run. */
export function createRun(db: WriteDb, input: NewRun): TrainingRun {
  const id = input.id ?? crypto.randomUUID();
  db.run(sql`
    INSERT INTO training_runs (id, project_id, task, base_model_id, config, status, created_at)
    VALUES (${id}, ${input.projectId}, ${input.task}, ${input.baseModelId ?? null}, ${toJson(input.config)},
      'queued', ${nowIso()})`);
  return must(getRun(db, id), `Run ${id}`);
}

/** One run. */
export function getRun(db: ReadDb, id: string): TrainingRun | undefined {
  const row = db.get<RunRow>(sql`
    SELECT * FROM training_runs
    WHERE id = ${id} AND project_id NOT IN (SELECT id FROM projects WHERE deleting = 1)`);
  return row && fromRow(row);
}

/** A project's runs, newest first. */
export function listRuns(db: ReadDb, projectId: number): TrainingRun[] {
  return db
    .all<RunRow>(sql`SELECT * FROM training_runs WHERE project_id = ${projectId} ORDER BY created_at DESC, id`)
    .map(fromRow);
}

/** Moves a run to `status` (checked against the allowed transitions) and stamps the times. */
export function updateRunStatus(db: WriteDb, id: string, status: RunStatus, update: RunUpdate = {}): TrainingRun {
  return db.transaction(() => {
    const cur = must(getRun(db, id), `Run ${id}`);
    if (!TRANSITIONS[cur.status].includes(status)) {
      throw new StoreError('invalid', `Run ${id} cannot go from ${cur.status} to ${status}`);
    }
    const now = nowIso();
    const terminal = status !== 'queued' && status !== 'running';
    db.run(sql`
      UPDATE training_runs SET status = ${status},
        started_at = ${status === 'running' ? now : (cur.startedAt ?? null)},
        finished_at = ${terminal ? now : null},
        error = ${update.error ?? (status === 'failed' || status === 'interrupted' ? (cur.error ?? null) : null)},
        checkpoint_path = ${update.checkpointPath ?? cur.checkpointPath ?? null},
        model_out_id = ${update.modelOutId ?? cur.modelOutId ?? null},
        stop_reason = ${status === 'completed' ? (update.stopReason ?? null) : null}
      WHERE id = ${id}`);
    return must(getRun(db, id), `Run ${id}`);
  });
}

/** Records the latest checkpoint of a run. */
export function setRunCheckpoint(db: WriteDb, id: string, checkpointPath: string): void {
  db.run(sql`UPDATE training_runs SET checkpoint_path = ${checkpointPath} WHERE id = ${id}`);
}

/**
 * Runs that may name the library model `modelId` (their starting model, or a parent in their
 * lineage): every run whose base is the model or whose recorded config mentions its id.
 */
export function runsNamingModel(db: ReadDb, modelId: string): TrainingRun[] {
  return db
    .all<RunRow>(sql`
      SELECT * FROM training_runs
      WHERE base_model_id = ${modelId} OR instr(config, ${JSON.stringify(modelId)}) > 0`)
    .map(fromRow);
}

/** Rewrites the name a run records for the model it starts from (its config's baseName). */
export function setRunBaseName(db: WriteDb, id: string, baseName: string): void {
  db.run(sql`UPDATE training_runs SET config = json_set(config, '$.baseName', ${baseName}) WHERE id = ${id}`);
}

/** Deletes a run and its metrics (not its files). */
export function deleteRun(db: WriteDb, id: string): boolean {
  return db.run(sql`DELETE FROM training_runs WHERE id = ${id}`).changes > 0;
}

/** Marks every 'running' run as 'interrupted' (called at open); returns how many. */
export function markInterruptedRuns(db: WriteDb): number {
  return db.run(sql`
    UPDATE training_runs SET status = 'interrupted', finished_at = ${nowIso()},
      error = ${INTERRUPTED_MESSAGE}
    WHERE status = 'running'`).changes;
}
