import { describe, expect, it } from 'vitest';
import { ValidationError, int, obj, str } from './guards.ts';

describe('argument guards', () => {
  const args = obj({ projectId: int(1) }, { name: str({ max: 10 }) });

  it('names an unknown field, cut short when the caller sent a long one', () => {
    expect(() => args({ projectId: 1, nmae: 'x' }, 'args')).toThrow(
      new ValidationError('args has an unknown field "nmae"'),
    );
    // A buggy client that sends a note as a key must not get it all echoed back.
    const note = 'Patient presented with chest pain and was admitted. '.repeat(1000);
    let message = '';
    try {
      args({ projectId: 1, [note]: true }, 'args');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(`args has an unknown field "${note.slice(0, 40)}…"`);
  });
});
