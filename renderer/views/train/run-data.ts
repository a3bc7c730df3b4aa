// The line under a run's name: what it starts from and the data it learns from, in the words of
// what it recorded (datasets it learns from, those that only measure it, its documents' counts).
import type { RunInfo } from '../../../engine/api/contract.ts';
import { countOf, formatNumber } from '../../lib/format.ts';

export function runDataLine(
  run: Pick<RunInfo, 'kind' | 'baseName' | 'datasetNames' | 'devDatasetNames' | 'documents'>,
): string {
  const parts = [run.kind === 'distill' ? 'Distillation' : 'Training', run.baseName];
  if (run.datasetNames.length > 0) parts.push(run.datasetNames.join(', '));
  const docs = run.documents;
  if (docs) {
    const measured =
      docs.dev === undefined
        ? ''
        : run.devDatasetNames !== undefined
          ? `; measured on ${run.devDatasetNames.join(', ')} (${countOf(docs.dev, 'document')})`
          : `, ${formatNumber(docs.dev)} held out to measure progress`;
    parts.push(`learns from ${countOf(docs.train, 'document')}${measured}`);
  } else if (run.devDatasetNames !== undefined) parts.push(`measured on ${run.devDatasetNames.join(', ')}`);
  return parts.join(' · ');
}
