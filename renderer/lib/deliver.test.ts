import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverEvent } from './deliver.ts';

describe('deliverEvent', () => {
  afterEach(() => vi.restoreAllMocks());

  it('hands the event to every listener even when one throws, and logs no payload', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: string[] = [];
    deliverEvent('engine:crashed', [
      () => seen.push('first'),
      () => {
        throw new TypeError('Mrs Jane Doe, MRN 123');
      },
      () => seen.push('banner'),
    ], { message: 'Mrs Jane Doe' });
    expect(seen).toEqual(['first', 'banner']);
    expect(error).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(error.mock.calls)).not.toContain('Jane');
    expect(JSON.stringify(error.mock.calls)).toContain('engine:crashed');
  });
});
