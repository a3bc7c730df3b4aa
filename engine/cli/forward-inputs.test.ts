// The --inputs checks of `benchtop forward` on nesting the [batch][seq] contract does not allow
// (the CLI-level cases, with a model, are in model-commands.test.ts).
import { describe, expect, it } from 'vitest';
import { UsageError } from './args.ts';
import { flatten } from './forward-inputs.ts';

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
