// --transfer's sources: named ones and paths, each once.
import { describe, expect, it } from 'vitest';
import { parseTransfer } from './transfer.ts';

describe('parseTransfer', () => {
  it('reads named sources and paths, and a source named twice once', () => {
    expect(parseTransfer('general, /data/articles,general,random')).toEqual([
      { kind: 'general' },
      { kind: 'path', path: '/data/articles' },
      { kind: 'random' },
    ]);
    expect(parseTransfer(['/data/a,b', '/data/a,b'])).toEqual([{ kind: 'path', path: '/data/a,b' }]);
    expect(() => parseTransfer(' , ')).toThrow(/--transfer needs general, random, random-shuffle or a path/);
  });
});
