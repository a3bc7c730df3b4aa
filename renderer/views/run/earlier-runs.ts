// The Run screen's "Earlier runs" lines: what each finished run did, in counts. A run over files
// of an earlier launch comes from the engine's text-free log (JobInfo.recorded): its results are
// the files it wrote, so its line says where they are instead of offering them again.
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

/** Whether an earlier run's results can be shown again (the engine still holds them). */
export const canShowAgain = (j: JobInfo): boolean => j.predict !== undefined;
