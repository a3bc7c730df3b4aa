// Run metrics: (run, epoch, step, split, name) → value, appended in batches by the trainer.
// Re-logging the same step (resume after a crash) overwrites. NaN is stored as NULL and read back as NaN.
import type { ReadDb, WriteDb } from './db.ts';
import { sql } from './sql.ts';

export interface MetricPoint {
  epoch: number;
  step: number;
  /** 'train', 'dev', 'test'… */
  split: string;
  name: string;
  value: number;
}

export interface MetricRow {
  epoch: number;
  step: number;
  split: string;
  name: string;
  value: number | null;
}

/** Converts a run_metrics row. */
export function fromRow(row: MetricRow): MetricPoint {
  return { epoch: row.epoch, step: row.step, split: row.split, name: row.name, value: row.value ?? Number.NaN };
}

/** Converts a point to its row (NaN → NULL). */
export function toRow(p: MetricPoint): MetricRow {
  return { epoch: p.epoch, step: p.step, split: p.split, name: p.name, value: Number.isNaN(p.value) ? null : p.value };
}

/** Appends metric points in one transaction. */
export function appendMetrics(db: WriteDb, runId: string, points: readonly MetricPoint[]): void {
  db.transaction(() => {
    for (const r of points.map(toRow)) {
      db.run(sql`
        INSERT INTO run_metrics (run_id, epoch, step, split, name, value)
        VALUES (${runId}, ${r.epoch}, ${r.step}, ${r.split}, ${r.name}, ${r.value})
        ON CONFLICT (run_id, name, step, split) DO UPDATE SET epoch = excluded.epoch, value = excluded.value`);
    }
  });
}

/** Removes a run's metrics: a run started again from its first step draws its curves anew. */
export function deleteRunMetrics(db: WriteDb, runId: string): void {
  db.run(sql`DELETE FROM run_metrics WHERE run_id = ${runId}`);
}

/**
 * Removes a run's metrics after `step` (its planned steps, at step 0, stay): a run continued from
 * its checkpoint takes the steps after it again.
 */
export function deleteRunMetricsAfter(db: WriteDb, runId: string, step: number): void {
  db.run(sql`DELETE FROM run_metrics WHERE run_id = ${runId} AND step > ${step}`);
}

/** One metric's points for a split, by step (loss curves). */
export function listMetricSeries(db: ReadDb, runId: string, name: string, split: string): MetricPoint[] {
  return db
    .all<MetricRow>(sql`
      SELECT epoch, step, split, name, value FROM run_metrics
      WHERE run_id = ${runId} AND name = ${name} AND split = ${split}
      ORDER BY step`)
    .map(fromRow);
}

/** Per epoch, the last value of each (split, name), ordered by epoch, split, name. */
export function listEpochMetrics(db: ReadDb, runId: string): MetricPoint[] {
  // SQLite returns the bare columns of the row holding max(step) in each group.
  return db
    .all<MetricRow>(sql`
      SELECT epoch, max(step) AS step, split, name, value FROM run_metrics
      WHERE run_id = ${runId}
      GROUP BY epoch, split, name
      ORDER BY epoch, split, name`)
    .map(fromRow);
}
