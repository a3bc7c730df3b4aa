// What a model folder given to the command line learned from, as a lineage record: its own
// lineage.json, else what `benchtop train`'s metrics.json lists (a run writes no lineage.json),
// else unknown. `benchtop model export` writes it; `train --model`, `distill --teacher/--student`
// and `pretrain --model` take the status of the folders they start from from it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEV_ONLY } from '../api/export-names.ts';
import { readShippedLineage } from '../api/shipped-models.ts';
import { type LineageEntry, type LineageRecord, lineageRecord } from '../distill/lineage.ts';
import { folderVocabulary } from '../distill/vocab-origin.ts';
import type { PhiStatus } from '../store/models.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const STATUSES: readonly unknown[] = ['no-phi', 'trained-on-phi', 'distilled-from-phi-teacher', 'unknown'] satisfies PhiStatus[];
const isPhiStatus = (v: unknown): v is PhiStatus => STATUSES.includes(v);

/** The folder's metrics.json if it is a `benchtop train` run's (task ner or re, its data listed). */
function trainMetrics(dir: string): Json | undefined {
  const file = path.join(dir, 'metrics.json');
  if (!existsSync(file)) return undefined;
  let m: unknown;
  try {
    m = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // the export's loader names a damaged metrics.json
  }
  if (!isObject(m) || (m['task'] !== 'ner' && m['task'] !== 're')) return undefined;
  const data = m['data'];
  return isObject(data) && Array.isArray(data['train']) && isObject(m['model']) ? m : undefined;
}

/** One lineage entry per part of the data a run read: a file by its name, workspace documents by count. */
function dataEntries(list: unknown, what: string, suffix: string, gradients: boolean): LineageEntry[] {
  return (Array.isArray(list) ? list : []).filter(isObject).map((d) => {
    const sha256 = typeof d['sha256'] === 'string' ? { sha256: d['sha256'] } : {};
    const source =
      typeof d['path'] === 'string'
        ? `${what} "${path.basename(d['path'])}"${suffix}`
        : `${what}: workspace documents (${typeof d['label'] === 'string' ? `${d['label']}, ` : ''}${String(d['documents'])} documents)${suffix}`;
    // The command line is told nothing of the data: it is taken as private, as a teacher is.
    return { kind: 'fine-tune', source, ...sha256, containsPhi: true, gradients };
  });
}

/**
 * What a `benchtop train` run learned from, from its metrics.json (it writes no lineage.json): its
 * starting point and its training and dev data, which count as patient data.
 */
function trainRecord(m: Json): LineageRecord {
  const model = m['model'] as Json;
  const data = m['data'] as Json;
  const origin = typeof model['origin'] === 'string' ? model['origin'] : '';
  const preset = /^preset ([\w.-]+)\b/.exec(origin)?.[1];
  // Written by runs since 2026-11-25: the status the starting folder's own record gave it.
  const carried = model['phi_status'];
  const start: LineageEntry =
    preset !== undefined
      ? { kind: 'init', source: `random initialisation (${preset})`, containsPhi: false, gradients: true }
      : isPhiStatus(carried)
        ? { kind: 'base-model', source: `starting model "${origin}" (${carried} by its record when the run began)`, containsPhi: carried !== 'no-phi', gradients: true, phiStatus: carried }
        : { kind: 'base-model', source: `starting model "${origin}" (no lineage.json here: PHI status unknown)`, containsPhi: false, gradients: true, phiStatus: 'unknown' };
  return lineageRecord([start, ...dataEntries(data['train'], 'training data', '', true), ...dataEntries(data['dev'], 'dev data', DEV_ONLY, false)]);
}

/** A `benchtop train` run's metrics when `dir` has no lineage.json of its own (which decides first). */
const runMetrics = (dir: string): Json | undefined => (existsSync(path.join(dir, 'lineage.json')) ? undefined : trainMetrics(dir));

/**
 * The PHI status the weights in `dir` carry by the folder's own record (as folderRecord reads it),
 * or undefined when it has none (no lineage.json, not a `train` run's folder, or not there): what
 * the command line's runs record of a starting folder, where it said only "unknown" before.
 */
export function recordedPhiStatus(dir: string): PhiStatus | undefined {
  const metrics = runMetrics(dir);
  if (metrics !== undefined) return trainRecord(metrics).phi_status;
  return existsSync(path.join(dir, 'lineage.json')) ? readShippedLineage(dir).phiStatus : undefined;
}

/** The record an export of `dir` starts from: its own lineage.json, a training run's data, or unknown. */
export function folderRecord(dir: string, name: string): LineageRecord {
  const vocabulary = folderVocabulary(dir);
  const metrics = runMetrics(dir);
  if (metrics !== undefined) return { ...trainRecord(metrics), ...(vocabulary && { vocabulary }) };
  const own = readShippedLineage(dir);
  const entries: LineageEntry[] =
    own.entries.length > 0
      ? own.entries
      : [{ kind: 'base-model', source: `model folder "${name}" (no usable lineage.json: PHI status unknown)`, containsPhi: false, gradients: true, phiStatus: 'unknown' }];
  return { ...lineageRecord(entries, vocabulary), phi_status: own.phiStatus };
}
