// `benchtop model export DIR --out OUT [--withhold-names] [--onnx]`: the command line's copy of a
// model folder to share, written by the workbench's export core (engine/api/model-export.ts:
// staged in a hidden folder, moved in only when whole) and, with --withhold-names, without the
// names and paths of what it learned from (engine/api/export-names.ts). The lineage record comes
// from the folder itself: its lineage.json, or what `benchtop train`'s metrics.json lists.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEV_ONLY } from '../api/export-names.ts';
import { exportFolder, type ExportSource } from '../api/model-export.ts';
import { readShippedLineage } from '../api/shipped-models.ts';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { type LineageEntry, type LineageRecord, lineageRecord } from '../distill/lineage.ts';
import { folderVocabulary } from '../distill/vocab-origin.ts';
import { requireString, UsageError, type Opts } from './args.ts';
import type { StopFlag } from './stoppable-write.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);


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
  const start: LineageEntry =
    preset !== undefined
      ? { kind: 'init', source: `random initialisation (${preset})`, containsPhi: false, gradients: true }
      : { kind: 'base-model', source: `starting model "${origin}" (no lineage.json here: PHI status unknown)`, containsPhi: false, gradients: true, phiStatus: 'unknown' };
  return lineageRecord([start, ...dataEntries(data['train'], 'training data', '', true), ...dataEntries(data['dev'], 'dev data', DEV_ONLY, false)]);
}

/** The record an export of `dir` starts from: its own lineage.json, a training run's data, or unknown. */
export function folderRecord(dir: string, name: string): LineageRecord {
  const vocabulary = folderVocabulary(dir);
  const metrics = existsSync(path.join(dir, 'lineage.json')) ? undefined : trainMetrics(dir);
  if (metrics !== undefined) return { ...trainRecord(metrics), ...(vocabulary && { vocabulary }) };
  const own = readShippedLineage(dir);
  const entries: LineageEntry[] =
    own.entries.length > 0
      ? own.entries
      : [{ kind: 'base-model', source: `model folder "${name}" (no usable lineage.json: PHI status unknown)`, containsPhi: false, gradients: true, phiStatus: 'unknown' }];
  return { ...lineageRecord(entries, vocabulary), phi_status: own.phiStatus };
}

/** `benchtop model export DIR --out OUT [--withhold-names] [--onnx]`. */
export async function cmdModelExport(positionals: string[], opts: Opts, stop: StopFlag = { cancelled: false }): Promise<void> {
  const dir = positionals[0];
  if (dir === undefined || dir === '') throw new UsageError('usage: benchtop model export DIR --out OUT [--withhold-names] [--onnx]');
  const out = requireString(opts, 'out');
  // A folder that is not a model is refused before OUT is made (the loader says what is missing).
  const m = loadHfFolder(dir);
  const isSharded = m.shards.length > 0;
  m.weights.clear();
  if (isSharded)
    throw new Error(`${dir}: its weights are split into shards (${path.basename(m.weightsFile)}); model export copies single-file weights (model.safetensors or pytorch_model.bin) only`);
  const full = path.resolve(dir);
  const name = path.basename(full);
  const source: ExportSource = { dir: full, name, record: folderRecord(full, name) };
  const withholdNames = opts['withhold-names'] === true;
  const report = await exportFolder(source, { outPath: path.resolve(out), includeOnnx: opts['onnx'] === true, withholdNames, forbidden: [], stop });
  console.log(`exported ${dir} to ${out}: ${report.files.join(', ')}`);
  console.log(`lineage.json: ${report.phiStatus}${withholdNames ? '; names and paths of what it learned from withheld' : '; the names and paths of what it learned from are kept (--withhold-names leaves them out)'}`);
}
