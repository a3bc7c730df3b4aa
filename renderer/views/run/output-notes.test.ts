import { describe, expect, it } from 'vitest';
import { splitScoreNotes, writtenWhere } from './output-notes.ts';

describe('scores the output format cannot hold', () => {
  it('are one note, not a problem; other issues stay problems', () => {
    const unread = { severity: 'error' as const, file: 'scan.pdf', message: 'no text layer; not read' };
    const r = splitScoreNotes([
      { severity: 'warning', file: 'brat export', message: '26 entity scores dropped' },
      unread,
      { severity: 'warning', file: 'brat export', message: '3 relation scores dropped' },
    ]);
    expect(r.problems).toEqual([unread]);
    expect(r.note).toBe(
      "The chosen format has no place for the model's confidence scores, so 26 entity scores and 3 relation scores were left out; every entity and relation found is written. JSON Lines and BioC keep the scores.",
    );
  });

  it('leave a run without them as it was', () => {
    const issues = [{ severity: 'warning' as const, file: 'out.txt', message: '2 discontinuous entities dropped' }];
    expect(splitScoreNotes(issues)).toEqual({ note: null, problems: issues });
    expect(splitScoreNotes([{ severity: 'warning', file: 'out.txt', message: '1 entity score dropped' }]).note).toContain('so 1 entity score was left out;');
  });
});

describe('where a run over files wrote its results', () => {
  it('names the one file, or the folder that holds them all', () => {
    expect(writtenWhere(['/home/nurse/out/results.csv'])).toBe('Written to /home/nurse/out/results.csv');
    expect(writtenWhere(['/home/nurse/out/a.txt', '/home/nurse/out/a.ann', '/home/nurse/out/sub/b.ann'])).toBe(
      'Written to 3 files in /home/nurse/out',
    );
    expect(writtenWhere(['C:\\out\\a.txt', 'C:\\out\\a.ann'])).toBe('Written to 2 files in C:\\out');
    expect(writtenWhere(['/a/x.txt', '/b/y.txt'])).toBe('Written to 2 files in /');
    expect(writtenWhere(['a.txt', 'b.txt'])).toBe('Written to 2 files');
    expect(writtenWhere([])).toBe('Nothing was written');
  });
});
