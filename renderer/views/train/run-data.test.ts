// The run monitor's line of data names the datasets a run learns from apart from those that only
// measure it (they were listed together, as if it learnt from both), with the counts of the
// documents it really used (those marked Annotated or Reviewed when it started).
import { describe, expect, it } from 'vitest';
import { resumeNote, runDataLine, runEndNote, runNextNote, runStatusLabel } from './run-data.ts';

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

describe('a run’s note in the runs list', () => {
  const ended = { canResume: false, canRestart: true } as const;
  it('says why a run failed, first that it cannot start again when its Start again would be refused', () => {
    // A relation run recorded before train:start refused its data (its error saved in the row).
    const error = 'Training stopped with an error: dev documents: none of its 1 entity pair has a relation besides "false"';
    expect(runEndNote({ ...ended, status: 'failed', error })).toBe('dev documents: none of its 1 entity pair has a relation besides "false"');
    expect(runEndNote({ ...ended, status: 'failed', error, continueBlocked: 'The documents this run measures …' })).toBe(
      'Cannot start again: dev documents: none of its 1 entity pair has a relation besides "false"',
    );
    expect(runEndNote({ canResume: true, canRestart: false, status: 'interrupted', continueBlocked: 'removed' })).toBe('Cannot continue');
  });

  it('says nothing the badge says already', () => {
    expect(runEndNote({ ...ended, status: 'cancelled' })).toBe('');
    expect(runEndNote({ canResume: false, canRestart: false, status: 'completed', modelId: 'm1' })).toBe('');
    expect(runEndNote({ ...ended, status: 'cancelled', error: 'Stopped at the time limit before finishing.' })).toBe(
      'Stopped at the time limit before finishing.',
    );
  });
});

describe('a finished run whose model was removed', () => {
  it('says so in the runs list (its badge still says Finished and Open model is gone)', () => {
    expect(runEndNote({ canResume: false, canRestart: false, status: 'completed' })).toBe('Its model has been removed from the library');
  });
});

describe('a run’s status badge', () => {
  it('says a distillation under way is distilling (it said "Training" in the Train and Distill screens’ run lists)', () => {
    expect(runStatusLabel({ kind: 'distill', status: 'running' })).toEqual({ text: 'Distilling', tone: 'info' });
    expect(runStatusLabel({ kind: 'train', status: 'running' })).toEqual({ text: 'Training', tone: 'info' });
    expect(runStatusLabel({ kind: 'distill', status: 'interrupted' })).toEqual({ text: 'Interrupted', tone: 'warn' });
  });
});

describe('a finished run’s next steps', () => {
  it('reads the best dev F1 in plain words and says where the model is and what comes next', () => {
    expect(runNextNote(0.778, 40)).toBe(
      'A dev F1 of 77.8 % means that on the documents it did not learn from, its finds and yours agreed roughly 8 times in 10 (100 % = all you marked found, nothing extra). The model is saved under Models.',
    );
  });

  it('warns that a score from a handful of held-out documents is rough', () => {
    expect(runNextNote(0.5, 2)).toContain(' Measured on only 2 documents: a rough guide until more are annotated. ');
    expect(runNextNote(0.5, 1)).toContain('only 1 document:');
    expect(runNextNote(0.5, 10)).not.toContain('rough guide');
  });

  it('says a score measured on part of the documents it learns from (no dev documents) is rough', () => {
    // One finished document: the engine holds back a tenth of its sentences to measure the run.
    const note = runNextNote(1, undefined, true);
    expect(note).toContain('on the text it did not learn from, its finds and yours agreed roughly 10 times in 10');
    expect(note).toContain(' Measured on a small part of the documents it learns from, held back from its training: a rough guide');
    expect(note).not.toContain('on the documents it did not learn from');
    expect(runNextNote(undefined, undefined, true)).not.toContain('rough guide');
  });

  it('without a dev score still says where the model is', () => {
    expect(runNextNote(undefined, undefined)).toBe(
      'The model is saved under Models. Evaluate shows how well it finds what you marked.',
    );
  });
});

describe('an interrupted run’s checkpoint', () => {
  it('says the step Continue goes on from, and the steps it takes again past it', () => {
    expect(resumeNote(1200, 1200)).toBe('It saved a checkpoint at step 1,200; continue from there, or start a new run.');
    expect(resumeNote(200, 275)).toBe(
      'It saved a checkpoint at step 200; continue from there, or start a new run. It had reached step 275: continuing takes the steps after step 200 again.',
    );
    expect(resumeNote(undefined, 275)).toBe('It saved a checkpoint; continue from there, or start a new run.');
  });
});
