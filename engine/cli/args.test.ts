// Numeric CLI values: plain decimal numbers only, so a blank or hexadecimal value is refused
// instead of being read as 0 or 16.
import { describe, expect, it } from 'vitest';
import { optionalNumber, UsageError } from './args.ts';

describe('optionalNumber', () => {
  it.each([
    ['3', 3],
    ['5e-5', 5e-5],
    ['0.1', 0.1],
    ['.5', 0.5],
    ['-1', -1],
    ['2E3', 2000],
  ])('reads %s', (v, want) => {
    expect(optionalNumber({ lr: v }, 'lr', 0)).toBe(want);
  });

  it.each(['', ' ', 'abc', '0x10', '1_000', '1e', 'Infinity', '3 epochs'])('refuses "%s"', (v) => {
    expect(() => optionalNumber({ epochs: v }, 'epochs', 0)).toThrow(UsageError);
    expect(() => optionalNumber({ epochs: v }, 'epochs', 0)).toThrow(`--epochs must be a number, got "${v}"`);
  });

  it('uses the fallback when the flag is absent', () => {
    expect(optionalNumber({}, 'epochs', 3)).toBe(3);
  });
});
