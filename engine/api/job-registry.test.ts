// The predicted documents of file runs held for run:get-document: within a text budget, the
// newest run first (older runs dropped), a run beyond the budget keeping its first documents,
// and dropped with the job's record once it is one of the oldest finished.
import { describe, expect, it } from 'vitest';
import type { DocumentPrediction } from '../tasks/predict-task.ts';
import { JobRegistry } from './job-registry.ts';

const docs = (n: number, chars: number): DocumentPrediction[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    text: 'x'.repeat(chars),
    entities: [],
    relations: [],
  }));

describe('held predicted documents', () => {
  it('keeps runs within the text budget, newest first', () => {
    const jobs = new JobRegistry({ keepText: 100 });
    expect(jobs.keepDocuments('a', docs(4, 10))).toBe(4);
    expect(jobs.keepDocuments('b', docs(5, 10))).toBe(5);
    expect(jobs.document('a', 3)?.id).toBe('d3');
    expect(jobs.keepDocuments('c', docs(3, 10))).toBe(3); // 'a' goes to make room
    expect(jobs.document('a', 0)).toBeUndefined();
    expect(jobs.document('b', 4)?.id).toBe('d4');
    expect(jobs.keepDocuments('d', docs(20, 10))).toBe(10); // alone beyond the budget
    expect(jobs.document('b', 0)).toBeUndefined();
    expect(jobs.document('d', 9)?.id).toBe('d9');
    expect(jobs.document('d', 10)).toBeUndefined();
  });

  it('forgets documents with the job record', () => {
    const jobs = new JobRegistry();
    const info = (jobId: string) =>
      ({
        jobId,
        kind: 'predict',
        projectId: null,
        startedAt: '',
        status: 'completed',
        progress: null,
      }) as const;
    jobs.setInfo(info('first'));
    jobs.keepDocuments('first', docs(1, 5));
    for (let i = 0; i < 20; i++) jobs.setInfo(info(`j${i}`));
    expect(jobs.info('first')).toBeUndefined();
    expect(jobs.document('first', 0)).toBeUndefined();
  });
});
