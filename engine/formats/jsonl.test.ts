// JSON Lines: the accepted entity/relation shapes (incl. doccano), code-point offsets, CRLF
// text, malformed lines with their numbers, and a lossless round trip.

import { describe, expect, it } from 'vitest';
import { exportJsonl, importJsonl } from './jsonl.ts';
import type { Document } from './types.ts';

describe('JSONL import', () => {
  const lines = [
    JSON.stringify({ id: 'a', text: 'Aspirin\r\ncauses ulcers.', entities: [{ start: 0, end: 7, type: 'Chemical', id: 'e1', norm_ids: ['D001241'] }, { spans: [[9, 15], [16, 22]], label: 'Disease', text: 'causes ulcers' }], relations: [{ type: 'CID', head: 'e1', tail: 'T2' }] }),
    '{"id": "b", "text": broken',
    JSON.stringify({ text: 'Metformin 😀 helps', label: [[12, 17, 'Verb']] }),
    '',
    JSON.stringify({ id: 7, text: 'doccano style', entities: [{ id: 1, label: 'X', start_offset: 0, end_offset: 7 }], relations: [{ id: 3, from_id: 1, to_id: 2, type: 'r' }], source: 'ann1' }),
    JSON.stringify({ id: 'c', entities: [] }),
    JSON.stringify({ id: 'd', text: 'short', entities: [{ start: 2, end: 50, type: 'X' }, { type: 'Y' }] }),
  ];
  const { documents, issues } = importJsonl(lines.join('\n'), 'in.jsonl', 'in');

  it('reads every accepted shape', () => {
    expect(documents.map((d) => d.id)).toEqual(['a', 'in-2', '7', 'd']);
    const [a, b, c] = documents;
    expect(a?.text).toBe('Aspirin\r\ncauses ulcers.');
    expect(a?.entities.map((e) => [e.id, e.type, e.text, e.normIds])).toEqual([
      ['e1', 'Chemical', 'Aspirin', ['D001241']],
      ['T2', 'Disease', 'causes ulcers', undefined],
    ]);
    expect(a?.relations).toEqual([{ id: 'R1', type: 'CID', arg1: 'e1', arg2: 'T2' }]);
    // Code-point offsets: the emoji is one code point, two UTF-16 units.
    expect(b?.entities[0]?.text).toBe('helps');
    expect(c?.entities[0]?.text).toBe('doccano');
    expect(c?.metadata).toEqual({ source: 'ann1' });
  });

  it('reports bad lines and bad items with line numbers', () => {
    expect(issues.map((i) => [i.severity, i.line, i.message])).toEqual([
      ['error', 2, 'malformed JSON; line skipped'],
      ['error', 5, 'document 7: relation 3: unknown argument id 2; dropped'],
      ['error', 6, 'record is not an object with a "text" string; skipped'],
      ['error', 7, 'entity T1: offsets outside the text; dropped'],
      ['error', 7, 'document d: entity 2: missing or malformed offsets; dropped'],
    ]);
    expect(issues.some((i) => i.message.includes('broken'))).toBe(false);
  });

  it('says once, by its keys, that a file of another kind of records has no "text" (never quoting values)', () => {
    const pair = (n: number): string => JSON.stringify({ gold_label: 'neutral', sentence1: `Two women ${n}.`, sentence2: `The sisters ${n}.` });
    const other = Array.from({ length: 6 }, (_, i) => pair(i));
    const all = importJsonl(other.join('\n'), 'snli.jsonl');
    expect(all.documents).toEqual([]);
    expect(all.issues).toEqual([
      {
        severity: 'error',
        file: 'snli.jsonl',
        line: 1,
        message:
          'none of the 6 records is an object with a "text" string (lines 1, 2, 3, …), so all were skipped: the first has the keys "gold_label", "sentence1", "sentence2"; ' +
          'each record needs its document\'s text in "text" ("id", "entities" and "relations" are optional)',
      },
    ]);
    expect(JSON.stringify(all.issues)).not.toMatch(/women|sisters|neutral/);
    // Some of a file's records, after a good one, and other shapes; a JSON array names its items.
    const mixed = importJsonl([JSON.stringify({ text: 'ok' }), '[1, 2]', '', ...other].join('\n'), 'm.jsonl');
    expect(mixed.documents.map((d) => d.text)).toEqual(['ok']);
    expect(mixed.issues.map((i) => [i.line, i.message.split(':')[0]])).toEqual([
      [2, '7 of the 8 records are not objects with a "text" string (lines 2, 4, 5, …) and were skipped'],
    ]);
    expect(mixed.issues[0]?.message).toContain('the first is an array, not an object;');
    const array = importJsonl(JSON.stringify([{ id: 1, text: 7 }, { id: 2 }, { id: 3 }, { id: 4 }]), 'a.json');
    expect(array.issues.map((i) => [i.line, i.message])).toEqual([
      [1, expect.stringMatching(/^none of the 4 records is an object with a "text" string \(items 1, 2, 3, … of the array\), so all were skipped: the first has the keys "id", "text" \(its "text" is a number, not a string\); /)],
    ]);
  });

  it('reports the first three lines that are not JSON at their lines, and the rest in one error', () => {
    const good = JSON.stringify({ id: 'a', text: 'Aspirin helps.' });
    const r = importJsonl([good, 'not json 1', 'not json 2', good, 'not json 3', 'not json 4', 'not json 5'].join('\n'), 'mixed.jsonl');
    expect(r.documents).toHaveLength(2);
    expect(r.issues.map((i) => [i.line, i.message])).toEqual([
      [2, 'malformed JSON; line skipped'],
      [3, 'malformed JSON; line skipped'],
      [5, 'malformed JSON; line skipped'],
      [6, '2 more lines are not JSON either (from line 6) and were skipped: each line of a JSON Lines file holds one JSON object'],
    ]);
    expect(r.issues.some((i) => i.message.includes('not json'))).toBe(false);
  });

  it('says a record followed by a comma (an array\'s items pasted one a line) is skipped for its comma, naming the line; a bad line in the middle keeps its neighbours', () => {
    const r = importJsonl('{"id":"a","text":"Fever."}\n{"id":"b","text":"Cough."},\n{"id":"c","text":"Pain."}\n{"id":"d","text":"Rash.",\n', 'notes.jsonl');
    expect(r.documents.map((d) => d.id)).toEqual(['a', 'c']);
    expect(r.issues.map((i) => [i.line, i.message])).toEqual([
      [2, 'malformed JSON: a comma after the record (JSON Lines has one record on each line, with no comma between them; remove the commas at the ends of the lines); line skipped'],
      [4, 'malformed JSON; line skipped'],
    ]);
  });

  it('names a record whose id is empty or blank like one without an id', () => {
    const res = importJsonl('{"id": "", "text": "a"}\n{"id": "  ", "text": "b"}\n{"id": " x ", "text": "c"}\n', 'notes.jsonl', 'notes');
    expect(res.documents.map((d) => d.id)).toEqual(['notes-1', 'notes-2', ' x ']);
    expect(res.issues).toEqual([]);
  });

  it('keeps doccano classification labels as metadata', () => {
    const res = importJsonl('{"text": "ok", "label": ["POS", "NEG"]}', 'cls.jsonl');
    expect(res.issues).toEqual([]);
    expect(res.documents[0]?.metadata).toEqual({ label: '["POS","NEG"]' });
  });

  it('accepts a JSON array of records', () => {
    const res = importJsonl(JSON.stringify([{ text: 'x' }, { text: 'y' }]), 'arr.json', 'arr');
    expect(res.documents.map((d) => d.text)).toEqual(['x', 'y']);
  });

  it('reads one pretty-printed object as one record (every line was an error)', () => {
    const res = importJsonl('{\n  "id": "n1",\n  "text": "Fever.",\n  "entities": [{"start": 0, "end": 5, "type": "Sign"}]\n}\n', 'one.json');
    expect(res.issues).toEqual([]);
    expect(res.documents.map((d) => [d.id, d.entities[0]?.text])).toEqual([['n1', 'Fever']]);
  });

  it('reads records an object holds in one array ({"documents": […]}, as programs export JSON; read as BioC, each was empty)', () => {
    const json = '{"exported": "2026-05-01", "documents": [{"id": "n1", "text": "Fever."}, {"id": "n2", "text": "Cough."}]}';
    for (const content of [json, json.replace(/, /g, ',\n  ')]) {
      const res = importJsonl(content, 'export.json');
      expect(res.issues).toEqual([]);
      expect(res.documents.map((d) => [d.id, d.text])).toEqual([['n1', 'Fever.'], ['n2', 'Cough.']]);
    }
  });

  it('names the line of a syntax error in a JSON array (it always said line 1), without quoting it', () => {
    const res = importJsonl('[\n{"text": "a"},\n{"text": "secret", }\n]\n', 'arr.json');
    expect(res.documents).toEqual([]);
    expect(res.issues).toEqual([{ severity: 'error', file: 'arr.json', line: 3, message: 'malformed JSON array' }]);
  });
});

describe('JSONL export', () => {
  it('round-trips every field of the document model', () => {
    const doc: Document = {
      id: 'z',
      text: 'Tab\there 😀 and\r\nmore',
      entities: [
        { id: 'T1', type: 'A', spans: [{ start: 0, end: 3 }, { start: 4, end: 8 }], text: 'Tab here', normIds: ['X:1'], score: 0.75, attributes: { k: 'v w' } },
        { id: 'T2', type: 'B', spans: [{ start: 12, end: 15 }], text: 'and' },
      ],
      relations: [
        { id: 'R1', type: 'r', arg1: 'T1', arg2: 'T2', score: 0.5 },
        { id: 'R2', type: 'c', arg1: 'X:1', arg2: 'X:1', byConcept: true },
      ],
      passages: [{ type: 'p', start: 0, end: 20 }],
      metadata: { m: '1' },
    };
    const out = exportJsonl([doc]);
    expect(out.issues).toEqual([]);
    const again = importJsonl(out.files[0]?.content ?? '', 'z.jsonl');
    expect(again.issues).toEqual([]);
    expect(again.documents).toEqual([doc]);
  });

  it('writes passages in code points like entities (they were UTF-16 units), and drops passages outside the text', () => {
    const doc: Document = { id: 'p', text: '😀 Title\nBody', entities: [], relations: [], passages: [{ type: 'title', start: 0, end: 8 }, { type: 'body', start: 9, end: 13 }] };
    const line = exportJsonl([doc]).files[0]?.content ?? '';
    expect((JSON.parse(line) as { passages: unknown }).passages).toEqual([{ type: 'title', start: 0, end: 7 }, { type: 'body', start: 8, end: 12 }]);
    expect(importJsonl(line, 'p.jsonl').documents).toEqual([doc]);
    const bad = importJsonl('{"id": "b", "text": "short", "passages": [{"start": 0, "end": 99}, {"start": 0, "end": 5}]}', 'b.jsonl');
    expect(bad.documents[0]?.passages).toEqual([{ type: 'passage', start: 0, end: 5 }]);
    expect(bad.issues).toEqual([{ severity: 'error', file: 'b.jsonl', line: 1, message: 'document b: passage 1: missing offsets or outside the text; dropped' }]);
  });
});

describe('JSONL records nested past the stack', () => {
  it('drop only the field that is, not the whole file (it failed as "could not parse file (RangeError)")', () => {
    const deep = `{"id": "b", "text": "Second note.", "extra": ${'['.repeat(200_000)}${']'.repeat(200_000)}, "ward": "3"}`;
    const content = [JSON.stringify({ id: 'a', text: 'First note.' }), deep, JSON.stringify({ id: 'c', text: 'Third note.' })].join('\n');
    const { documents, issues } = importJsonl(content, 'deep.jsonl');
    expect(documents.map((d) => [d.id, d.text, d.metadata])).toEqual([
      ['a', 'First note.', undefined],
      ['b', 'Second note.', { ward: '3' }],
      ['c', 'Third note.', undefined],
    ]);
    expect(issues).toEqual([{ severity: 'warning', file: 'deep.jsonl', line: 2, message: 'document b: a field nested too deeply to keep as metadata; dropped' }]);
  });
});
