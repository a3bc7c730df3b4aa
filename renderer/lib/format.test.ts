import { describe, expect, it } from 'vitest';
import { camelCaseParts, countOf, exportSummary, finishedLabel, importSummary, issueSentence, issuesSummary, MAX_PROJECT_NAME, modelLabel, projectNameProblem, rowScores, runOutcome } from './format.ts';

describe('runOutcome', () => {
  it('names why a run stopped before the planned steps', () => {
    expect(
      runOutcome({ steps: 29, totalSteps: 120, stopReason: 'early-stopped', bestF1: 0.053 }),
    ).toBe(
      'Trained for 29 steps of the 120 planned: it stopped early because the dev F1 stopped improving. Best dev F1: 5.3 %.',
    );
    expect(
      runOutcome({ steps: 40, totalSteps: 120, stopReason: 'time-limit', bestF1: undefined }),
    ).toBe('Trained for 40 steps of the 120 planned: it reached its time limit.');
  });

  it('says plainly when a run did all it planned', () => {
    expect(runOutcome({ steps: 120, totalSteps: 120, stopReason: 'completed', bestF1: 0.5 })).toBe(
      'Trained for 120 steps. Best dev F1: 50.0 %.',
    );
    expect(
      runOutcome({ steps: 3, totalSteps: 3, stopReason: 'max-steps', bestF1: undefined }),
    ).toBe('Trained for 3 steps, the step limit you set.');
  });

  it('does not invent a reason for runs recorded before reasons were kept', () => {
    expect(
      runOutcome({ steps: 29, totalSteps: 120, stopReason: undefined, bestF1: undefined }),
    ).toBe('Trained for 29 steps of the 120 planned: it stopped before the end.');
  });
});

describe('countOf', () => {
  it('uses the singular for one', () => {
    expect(countOf(1, 'document')).toBe('1 document');
    expect(countOf(2, 'entity')).toBe('2 entities');
    expect(countOf(0, 'relation')).toBe('0 relations');
  });
});

describe('modelLabel', () => {
  it('adds the time to models that share a name, and a short id when the time is shared too', () => {
    const a = { id: 'aaaaaa11', name: 'Entities · Demo', createdAt: '2026-11-22T09:00:00Z' };
    const b = { id: 'bbbbbb22', name: 'Entities · Demo', createdAt: '2026-11-22T15:30:00Z' };
    const c = { id: 'cccccc33', name: 'Other', createdAt: '2026-11-22T15:30:00Z' };
    expect(modelLabel(c, [a, b, c])).toBe('Other');
    expect(modelLabel(a, [a, b, c])).not.toBe(modelLabel(b, [a, b, c]));
    expect(modelLabel(a, [a, b, c])).toMatch(/^Entities · Demo · .+/);
    const twin = { ...b, id: 'dddddd44' };
    expect(modelLabel(b, [b, twin])).toMatch(/· bbbbbb$/);
    expect(modelLabel(twin, [b, twin])).toMatch(/· dddddd$/);
  });
});

describe('finishedLabel', () => {
  it('formats the count like every other count (BC5CDR train has 4,560 annotated documents)', () => {
    expect(finishedLabel(4560)).toBe('4,560 annotated or reviewed');
    expect(finishedLabel(0)).toBe('0 annotated or reviewed');
  });
});

describe('rowScores', () => {
  it('shows a dash, with why, where the model marked none or none is annotated', () => {
    expect(rowScores({ precision: 0, recall: 0, tp: 0, fp: 0, fn: 7 })).toEqual({
      precision: '–',
      recall: '0.0 %',
      precisionNote: expect.stringContaining('marked none') as unknown,
    });
    expect(rowScores({ precision: 0, recall: 0, tp: 0, fp: 3, fn: 0 })).toEqual({
      precision: '0.0 %',
      recall: '–',
      recallNote: expect.stringContaining('None of these is annotated') as unknown,
    });
    expect(rowScores({ precision: 0.5, recall: 0.25, tp: 1, fp: 1, fn: 3 })).toEqual({ precision: '50.0 %', recall: '25.0 %' });
    // Relation rows carry no counts: their scores are shown as they are.
    expect(rowScores({ precision: 0, recall: 0 })).toEqual({ precision: '0.0 %', recall: '0.0 %' });
  });
});

describe('camelCaseParts', () => {
  it('cuts a class name between its words, keeping short ones joined', () => {
    expect(camelCaseParts('BertForTokenClassification')).toEqual(['BertFor', 'Token', 'Classification']);
    expect(camelCaseParts('BertForMaskedLM')).toEqual(['BertFor', 'MaskedLM']);
    expect(camelCaseParts('RobertaForSequenceClassification')).toEqual(['Roberta', 'ForSequence', 'Classification']);
    expect(camelCaseParts('bert')).toEqual(['bert']);
    expect(camelCaseParts('')).toEqual(['']);
    // Nothing is lost or reordered.
    for (const n of ['ElectraForTokenClassification', 'AlbertModel', 'MobileBertForMaskedLM'])
      expect(camelCaseParts(n).join('')).toBe(n);
  });
});

describe('projectNameProblem', () => {
  it('asks for a name, and says how long a name over the limit is instead of cutting it', () => {
    expect(projectNameProblem('  ')).toBe('Give the project a name.');
    expect(projectNameProblem('Discharge letters 2024')).toBeNull();
    expect(projectNameProblem(` ${'a'.repeat(MAX_PROJECT_NAME)} `)).toBeNull();
    expect(projectNameProblem('a'.repeat(93))).toBe(
      'A project name can have at most 80 characters; this one has 93. Shorten it.',
    );
  });
});

describe('importSummary', () => {
  const report = { filesRead: 1, documentsAdded: 2, documentsSkipped: 0, entitiesAdded: 1, relationsAdded: 0 };
  it('counts each thing in the singular or plural it needs, duplicates included', () => {
    expect(importSummary(report)).toBe('Read 1 file: added 2 documents with 1 entity and 0 relations.');
    // Was "1 duplicates left out".
    expect(importSummary({ ...report, documentsSkipped: 1 })).toBe(
      'Read 1 file: added 2 documents with 1 entity and 0 relations; 1 duplicate left out.',
    );
    expect(importSummary({ ...report, filesRead: 3, documentsSkipped: 2 })).toMatch(/^Read 3 files: .*; 2 duplicates left out\.$/);
    expect(importSummary({ ...report, filesRead: 0, documentsAdded: 0, entitiesAdded: 0 })).toBe(
      'Nothing was imported: the folder holds no files (hidden files and folders are left out).',
    );
  });
});

describe('exportSummary', () => {
  it('writes the document count as the Documents screen does (with its thousands separator)', () => {
    expect(exportSummary({ documents: 1007, written: ['/out/notes.jsonl'] })).toBe(
      `Exported ${(1007).toLocaleString()} documents to 1 file.`,
    );
    expect(exportSummary({ documents: 1, written: ['a.txt', 'a.ann'] })).toBe('Exported 1 document to 2 files.');
  });
});

describe('issuesSummary', () => {
  it('counts problems, errors and warnings with thousands separators and the right plural', () => {
    const issues = [...Array<{ severity: string }>(10_000).fill({ severity: 'error' }), { severity: 'warning' }];
    expect(issuesSummary(issues)).toBe(
      `${(10_001).toLocaleString()} problems found (${(10_000).toLocaleString()} errors, 1 warning)`,
    );
    expect(issuesSummary([{ severity: 'warning' }])).toBe('1 problem found (0 errors, 1 warning)');
  });
});

describe('issueSentence', () => {
  it("says an export's losses as sentences", () => {
    expect(issueSentence('2 entity scores dropped')).toBe('2 entity scores were dropped.');
    expect(issueSentence('3 documents had passage boundaries dropped')).toBe('3 documents had passage boundaries dropped.');
    expect(issueSentence('documents had passage boundaries dropped (read back as sentences)')).toBe('Documents had passage boundaries dropped (read back as sentences).');
  });
});
