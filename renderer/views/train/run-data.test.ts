// The run monitor's line of data names the datasets a run learns from apart from those that only
// measure it (they were listed together, as if it learnt from both), with the counts of the
// documents it really used (those marked Annotated or Reviewed when it started).
import { describe, expect, it } from 'vitest';
import { runDataLine } from './run-data.ts';

const base = { kind: 'train', baseName: 'Default student' } as const;

describe('a run’s line of data', () => {
  it('names the measuring datasets apart and counts the documents', () => {
    expect(
      runDataLine({ ...base, datasetNames: ['ward-notes'], devDatasetNames: ['check-notes'], documents: { train: 1200, dev: 3 } }),
    ).toBe('Training · Default student · ward-notes · learns from 1,200 documents; measured on check-notes (3 documents)');
    expect(runDataLine({ ...base, datasetNames: ['ward-notes'], documents: { train: 6, dev: 1 } })).toBe(
      'Training · Default student · ward-notes · learns from 6 documents, 1 held out to measure progress',
    );
    expect(runDataLine({ ...base, datasetNames: ['ward-notes'], documents: { train: 1 } })).toBe(
      'Training · Default student · ward-notes · learns from 1 document',
    );
  });

  it('reads as before for a run that recorded no counts, and for a distillation on transfer text', () => {
    expect(runDataLine({ ...base, datasetNames: ['a', 'b'] })).toBe('Training · Default student · a, b');
    expect(runDataLine({ kind: 'distill', baseName: 'student', datasetNames: [] })).toBe('Distillation · student');
  });
});
