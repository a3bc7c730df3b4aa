// What a lineage entry on the Models screen says the model did with its source, from the record
// the engine keeps (store/models.ts, api/models.ts). Records keep a parent model's id and PHI
// status for exports and audits; on screen the status reads as the PHI badges do and the id is
// left out. An imported folder is recorded as the model's pre-training: it reads as the import.
import type { LineageItem, PhiStatus } from '../../../engine/api/contract.ts';
import { PHI_LABEL } from '../../lib/format.ts';

const KIND: Record<string, string> = {
  'fine-tune': 'fine-tuned on',
  'distill-transfer': 'distilled with',
  'distill-private': 'distilled on',
  pretrain: 'pre-trained on',
  init: 'started from',
  teacher: 'taught by',
  'base-model': 'based on',
};
const IMPORTED = /^imported folder (".*")$/s;
// store/models.ts: model "<name>" (<id>, <status>), and api/mappers.ts may add ", now named “…”".
const PARENT = /^(model ".*") \([0-9a-f-]{36}, ([a-z-]+)\)(, now named “.*”)?$/s;

/** "fine-tuned on dataset …", "imported from the folder …", "based on model "X" (No patient data)". */
export function lineagePhrase(e: Pick<LineageItem, 'kind' | 'source'>): string {
  const folder = e.kind === 'pretrain' ? IMPORTED.exec(e.source) : null;
  if (folder) return `imported from the folder ${folder[1]}`;
  const parent = PARENT.exec(e.source);
  const status = parent ? PHI_LABEL[parent[2] as PhiStatus] : undefined;
  const source = parent && status ? `${parent[1]} (${status.text})${parent[3] ?? ''}` : e.source;
  return `${KIND[e.kind] ?? e.kind} ${source}`;
}
