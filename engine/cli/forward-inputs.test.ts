// The --inputs file of `benchtop forward`: its encoding, and nesting the [batch][seq] contract
// does not allow (the CLI-level cases, with a model, are in model-commands.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from './args.ts';
import { flatten, readInputsJson } from './forward-inputs.ts';

const TOO_DEEP = 'is nested more than 2 levels deep; it must be [batch][seq] (or [batch] for the labels of sequence classification)';

describe('flatten', () => {
  it('reads [batch][seq] and [batch]', () => {
    expect(flatten([[2, 5, 3], [4, 6, 7]], 'input_ids', 'in.json')).toEqual({ dims: [2, 3], values: [2, 5, 3, 4, 6, 7] });
    expect(flatten([1, 0], 'labels', 'in.json')).toEqual({ dims: [2], values: [1, 0] });
  });

  it('refuses arrays nested deeper than [batch][seq] in one error, however deep (20,000 levels overflowed the stack)', () => {
    // Built by JSON.parse, as the --inputs file is read: JSON.stringify itself overflows on it.
    const deep = JSON.parse(`${'['.repeat(20000)}2${']'.repeat(20000)}`) as unknown;
    expect(() => flatten(deep, 'input_ids', 'in.json')).toThrow(new UsageError(`in.json: "input_ids" ${TOO_DEEP}`));
    expect(() => flatten([[[0, 1]]], 'labels', 'in.json')).toThrow(new UsageError(`in.json: "labels" ${TOO_DEEP}`));
    // Deep nesting below the first row is a ragged row.
    const row = JSON.parse(`[[2, 5], [3, ${'['.repeat(20000)}4${']'.repeat(20000)}]]`) as unknown;
    expect(() => flatten(row, 'input_ids', 'in.json')).toThrow(new UsageError('in.json: "input_ids" is ragged; pad every row to the same length'));
  });
});

describe('readInputsJson', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-inputs-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const file = path.join(tmp, 'in.json');
  const json = '{"input_ids": [[2, 5, 3]]}\r\n';

  it('reads UTF-8 with or without a byte-order mark', () => {
    for (const text of [json, `\ufeff${json}`]) {
      writeFileSync(file, text);
      expect(readInputsJson(file)).toEqual({ input_ids: [[2, 5, 3]] });
    }
  });

  it("refuses UTF-16 (Windows PowerShell 5's \"python make.py > in.json\") saying so, not \"Unexpected token\"", () => {
    writeFileSync(file, Buffer.from(`\ufeff${json}`, 'utf16le'));
    expect(() => readInputsJson(file)).toThrow(new UsageError(`${file}: is UTF-16 text (as Notepad's "Unicode" and Windows PowerShell 5's ">" write it); save it as UTF-8`));
  });
});
