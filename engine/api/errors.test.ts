import { afterEach, describe, expect, it, vi } from 'vitest';
import { toErrorInfo } from './errors.ts';

afterEach(() => vi.restoreAllMocks());

describe('toErrorInfo', () => {
  it('logs the type and stack frames of an unexpected error, never its message lines', () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
      logged.push(parts.map(String).join(' '));
    });
    // A library error that quotes the text it choked on, over several lines.
    const err = new TypeError(
      'Unexpected token in line 3:\nPatient Jane Roe, MRN 12345, was seen for chest pain.\n' +
        '    at the clinic, Jane Roe was given aspirin.\n  ^',
    );
    const info = toErrorInfo(err, 'documents:import');
    expect(info.code).toBe('internal');
    expect(info.message).not.toContain('Jane Roe');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('documents:import failed with TypeError');
    expect(logged[0]).toMatch(/\n\s+at /); // the frames are still there to debug with
    expect(logged[0]).not.toContain('Jane Roe');
    expect(logged[0]).not.toContain('Unexpected token');
  });

  it('logs no frames when the message was changed after the error was made', () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
      logged.push(parts.map(String).join(' '));
    });
    const err = new Error('first');
    err.message = 'Jane Roe';
    err.stack = 'Error: note line\n    at Jane Roe (x.ts:1:1)';
    toErrorInfo(err, 'documents:get');
    expect(logged).toEqual(['[benchtop] documents:get failed with Error\n']);
  });
});
