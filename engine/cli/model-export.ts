// `benchtop model export DIR --out OUT [--withhold-names] [--onnx]`: the command line's copy of a
// model folder to share, written by the workbench's export core (engine/api/model-export.ts:
// staged in a hidden folder, moved in only when whole) and, with --withhold-names, without the
// names and paths of what it learned from (engine/api/export-names.ts). The lineage record comes
// from the folder itself (folder-record.ts).
import path from 'node:path';
import { exportFolder, type ExportSource } from '../api/model-export.ts';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { requireString, UsageError, type Opts } from './args.ts';
import { folderRecord } from './folder-record.ts';
import type { StopFlag } from './stoppable-write.ts';

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
