import { describe, expect, it } from 'vitest';
import { readableRequestError } from './request-errors.ts';

describe('readableRequestError', () => {
  it('names the field as the screen does, with the limit', () => {
    expect(readableRequestError('Invalid request: args.entityType.name must be at most 200 characters.')).toBe(
      'The entity type’s name can have at most 200 characters; shorten it.',
    );
    expect(readableRequestError('Invalid request: args.relationType.name must be at most 200 characters.')).toBe(
      'The relation type’s name can have at most 200 characters; shorten it.',
    );
    expect(readableRequestError('Invalid request: args.entityType.description must be at most 2000 characters.')).toBe(
      'The entity type’s description can have at most 2000 characters; shorten it.',
    );
    expect(readableRequestError('Invalid request: args.inputPath must be at most 4096 characters.')).toBe(
      'The path to read can have at most 4096 characters; shorten it.',
    );
    expect(readableRequestError('Invalid request: args.name must be filled in.')).toBe('The name cannot be empty; type one.');
    expect(readableRequestError('Invalid request: args.outPath must not contain a NUL character.')).toBe(
      'The path to write must not contain a NUL character.',
    );
  });

  it('leaves other messages, and fields it does not know, as they are', () => {
    for (const message of [
      'Nothing exists at that path; check the spelling, or copy the path from your file manager.',
      'Invalid request: args.projectId must be an integer from 1 to 9007199254740991.',
      'Invalid request: args has an unknown field "x".',
    ])
      expect(readableRequestError(message)).toBe(message);
  });
});
