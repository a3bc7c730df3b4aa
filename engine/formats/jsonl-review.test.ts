// Benchtop's review state in its JSONL ("benchtop": {status, suggestions}): written and read back;
// another tool's "status" field stays metadata; a value Benchtop does not know is a warning.
import { describe, expect, it } from 'vitest';
import { exportJsonl, importJsonl } from './jsonl.ts';
import { jsonlParser } from './jsonl.ts';
import type { Document, FormatIssue } from './types.ts';

const base = { text: 'Aspirin treats fever.', entities: [{ id: 'T1', type: 'Drug', start: 0, end: 7 }, { id: 'T2', type: 'Disease', start: 15, end: 20 }], relations: [{ id: 'R1', type: 'treats', arg1: 'T1', arg2: 'T2' }] };
const messages = (issues: readonly FormatIssue[]): string[] => issues.map((i) => `${i.line ?? '-'}: ${i.message}`);

describe('JSONL review state', () => {
  it('round-trips a document status and its suggestions, by the model that made them', () => {
    const doc: Document = {
      id: 'n1',
      text: base.text,
      entities: [{ id: 'T1', type: 'Drug', spans: [{ start: 0, end: 7 }], text: 'Aspirin' }, { id: 'T2', type: 'Disease', spans: [{ start: 15, end: 20 }], text: 'fever', score: 0.4 }],
      relations: [{ id: 'R1', type: 'treats', arg1: 'T1', arg2: 'T2', score: 0.3 }],
      review: {
        status: 'in-progress',
        suggestions: { entities: [{ id: 'T2', by: 'ner v2' }], relations: [{ id: 'R1' }] },
        rejected: {
          entities: [{ id: 'T3', type: 'Drug', spans: [{ start: 8, end: 14 }], text: 'treats', score: 0.2, by: 'ner v2' }],
          relations: [{ id: 'R2', type: 'treats', arg1: 'T3', arg2: 'T2' }],
        },
      },
    };
    const text = exportJsonl([doc]).files[0]?.content as string;
    const back = importJsonl(text, 'x.jsonl');
    expect(back.documents).toEqual([doc]);
    expect(messages(back.issues)).toEqual([
      "-: 1 document's status (1 in-progress) taken from the file, as Benchtop's JSONL export records them; 2 model suggestions read as suggestions, not annotations: review them in the editor (until accepted they are not trained on); 2 rejected model suggestions kept as rejected (not shown; a model's next run does not suggest them again)",
    ]);
    // Rejected ones are not among the record's entities, where another tool would read them as annotations.
    expect((JSON.parse(text) as { entities: unknown[] }).entities).toHaveLength(2);
  });

  it('leaves another tool\'s "status" as metadata, and an older Benchtop file as it was read', () => {
    const foreign = importJsonl(JSON.stringify({ id: 'c1', ...base, status: 'final' }), 'notes.jsonl');
    expect(foreign.issues).toEqual([]);
    expect(foreign.documents[0]?.review).toBeUndefined();
    expect(foreign.documents[0]?.metadata).toEqual({ status: 'final' });
    const older = importJsonl(JSON.stringify({ id: 'c1', ...base }), 'old.jsonl');
    expect(older.issues).toEqual([]);
    expect(older.documents[0]).not.toHaveProperty('review');
    expect(older.documents[0]).not.toHaveProperty('metadata');
  });

  it('warns about a status or suggestions Benchtop does not know, and reads the rest of the record', () => {
    const lines = [
      { id: 'a', ...base, benchtop: { status: 'amended' } },
      { id: 'b', ...base, benchtop: { status: 'reviewed', suggestions: { entities: ['T9', 'T2', 'T2'], relations: [] } } },
      { id: 'c', ...base, benchtop: 'reviewed' },
      { id: 'd', ...base, benchtop: { suggestions: ['T1'] } },
      { id: 'e', ...base, benchtop: { rejected: { entities: [{ id: 'T5', type: 'Drug', start: 8, end: 99 }], relations: [{ id: 'R5', type: 'x', arg1: 'T1', arg2: 'T9' }] } } },
      { id: 'f', ...base, benchtop: { rejected: [] } },
    ].map((r) => JSON.stringify(r));
    const { documents, issues } = importJsonl(lines.join('\n'), 'x.jsonl');
    expect(documents.map((d) => [d.id, d.entities.length, d.relations.length, d.review, d.metadata])).toEqual([
      ['a', 2, 1, undefined, undefined],
      // T2 is the argument of a relation that is an annotation, so an annotation too (as accepting the relation makes it).
      ['b', 2, 1, { status: 'reviewed' }, undefined],
      ['c', 2, 1, undefined, { benchtop: 'reviewed' }],
      ['d', 2, 1, undefined, undefined],
      ['e', 2, 1, undefined, undefined],
      ['f', 2, 1, undefined, undefined],
    ]);
    expect(messages(issues)).toEqual([
      '1: document a: "benchtop.status" is not a status Benchtop knows (new, in-progress, annotated, reviewed); the document\'s status is set as for other files (annotated when it has annotations, else new)',
      '2: document b: 2 of "benchtop.suggestions" name no entity or relation of the record (or one twice); ignored',
      '3: document c: "benchtop" is not an object as Benchtop writes it; kept as metadata',
      '4: document d: "benchtop.suggestions" is not as Benchtop writes it (lists of entity and relation ids); its annotations are read as annotations',
      '5: entity T5: offsets outside the text; dropped', // as for the record's own entities
      '5: document e (rejected suggestions): relation R5: unknown argument id T9; dropped',
      '6: document f: "benchtop.rejected" is not as Benchtop writes it (lists of entities and relations); ignored',
      "-: 1 document's status (1 reviewed) taken from the file, as Benchtop's JSONL export records them",
    ]);
  });

  it('reads the same when a large file is read line by line', () => {
    const rec = JSON.stringify({ id: 'a', ...base, benchtop: { status: 'new', suggestions: { entities: [{ id: 'T1' }, { id: 'T2' }], relations: [{ id: 'R1' }] } } });
    const documents: Document[] = [];
    const issues: FormatIssue[] = [];
    const parser = jsonlParser({ file: 'big.jsonl', issues }, documents);
    parser.line(rec, 1);
    parser.end();
    expect(documents[0]?.review).toEqual({ status: 'new', suggestions: { entities: [{ id: 'T1' }, { id: 'T2' }], relations: [{ id: 'R1' }] } });
    // "new" with only suggestions is what any import gives: only the suggestions are said.
    expect(messages(issues)).toEqual(['-: 3 model suggestions read as suggestions, not annotations: review them in the editor (until accepted they are not trained on)']);
  });
});
