// The Run screen's "Earlier runs" lines: what each finished run did, in counts. A run over files
// of an earlier launch comes from the engine's text-free log (JobInfo.recorded): its results are
// the files it wrote, read again when shown (run:reopen).
import type { JobInfo } from '../../../engine/api/contract.ts';
import { countOf, formatNumber } from '../../lib/format.ts';

/** "6 documents, 26 entities" (or the job's status when it did not complete). */
export function earlierRunCounts(j: JobInfo): string {
  const r = j.recorded;
  if (r !== undefined) {
    const docs = r.planned !== undefined ? `${formatNumber(r.documents)} of ${countOf(r.planned, 'document')}` : countOf(r.documents, 'document');
    const relations = r.relations > 0 ? `, ${countOf(r.relations, 'relation')}` : '';
    return `${docs}, ${countOf(r.entities, 'entity')}${relations}`;
  }
  if (j.status !== 'completed') return j.status;
  return countOf(j.predict?.documents ?? 0, 'document');
}

/**
 * Whether an earlier run's results can be shown again: the engine still holds them, or a run over
 * files of an earlier launch can be read again from the files it wrote (run:reopen); not one
 * recorded before Benchtop noted what a run writes (it could not tell whether they changed).
 */
export const canShowAgain = (j: JobInfo): boolean => j.predict !== undefined || j.recorded?.canShowAgain === true;

/**
 * What a result read again from an earlier run's files cannot show, as its format keeps no place
 * for it (null when it keeps everything): "CoNLL keeps no confidence scores or relations: …".
 */
export function reopenedLoss(r: { format: string; scores: boolean; relations: boolean }): string | null {
  const lost = [...(r.scores ? [] : ['confidence scores']), ...(r.relations ? [] : ['relations'])];
  if (lost.length === 0) return null;
  const name = FORMAT_NAMES[r.format] ?? r.format;
  return `${name} keeps no ${lost.join(' or ')}, so the model's ${lost.join(' and ')} are not shown here. JSON Lines and BioC keep everything.`;
}

const FORMAT_NAMES: Record<string, string> = { brat: 'brat', pubtator: 'PubTator', conll: 'CoNLL', csv: 'CSV', jsonl: 'JSON Lines', 'bioc-xml': 'BioC XML', 'bioc-json': 'BioC JSON' };
