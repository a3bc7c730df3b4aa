// How a CoNLL file without -DOCSTART- lines becomes documents, chosen in the Import panel: the
// choice applies to folders and files CoNLL may be read from (not a PDF or a CSV), a number of
// sentences that is not a whole number from 1 is refused beside the field, and the engine is
// sent N only when one document every N sentences is chosen and applies.
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../api.ts', () => ({
  ApiError: Error,
  call: vi.fn((name: string) =>
    name === 'documents:import' ? Promise.resolve({ documentsAdded: 1, issues: [] }) : Promise.reject(new Error(`unexpected ${name}`)),
  ),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const { call } = await import('../api.ts');
const { conllSentencesError, importer, mayHoldConll } = await import('./importer.svelte.ts');

/** The arguments of the last documents:import request. */
const lastImport = (): Record<string, unknown> =>
  vi.mocked(call).mock.calls.filter((c) => c[0] === 'documents:import').at(-1)?.[1] as Record<string, unknown>;

beforeEach(() => {
  importer.reset();
  importer.containsPhi = false;
});

describe('the choice for CoNLL files without -DOCSTART- lines', () => {
  it('applies to folders and files CoNLL may be read from', () => {
    for (const path of ['/data/ncbi/train.tsv', '/data/corpus.conll', 'C:\\data\\notes.txt', '/data/corpora', '/data/x.IOB2'])
      expect(mayHoldConll(path), path).toBe(true);
    for (const path of ['', '  ', '/data/report.pdf', '/data/notes.CSV', '/data/bioc.xml', '/data/a.jsonl', '/data/b.json', '/data/c.docx'])
      expect(mayHoldConll(path), path).toBe(false);
  });

  it('takes a whole number of sentences from 1 to 1,000,000', () => {
    for (const n of [1, 10, 100, 1_000_000]) expect(conllSentencesError(n)).toBeNull();
    for (const n of [0, -1, 2.5, 1_000_001, Number.NaN, null, undefined])
      expect(conllSentencesError(n)).toBe('Give a whole number of sentences per document, from 1 to 1,000,000.');
  });

  it('sends N only when one document every N sentences is chosen and applies', async () => {
    importer.path = '/data/train.tsv';
    await importer.start();
    expect(lastImport()).not.toHaveProperty('conllSentencesPerDocument');

    importer.conllSplit = 'every';
    importer.conllSentences = 10;
    await importer.start();
    expect(lastImport()).toMatchObject({ path: '/data/train.tsv', conllSentencesPerDocument: 10 });

    // A PDF has no such choice: nothing is sent, whatever was chosen before.
    importer.path = '/data/report.pdf';
    expect(importer.isConllChoiceShown).toBe(false);
    await importer.start();
    expect(lastImport()).not.toHaveProperty('conllSentencesPerDocument');
  });

  it('refuses to start with a number of sentences that cannot be used, saying why', async () => {
    importer.path = '/data/train.tsv';
    importer.conllSplit = 'every';
    importer.conllSentences = 0;
    expect(importer.conllSentencesError).toBe('Give a whole number of sentences per document, from 1 to 1,000,000.');
    expect(importer.canStart).toBe(false);
    const before = vi.mocked(call).mock.calls.length;
    expect(await importer.start()).toBeNull();
    expect(vi.mocked(call).mock.calls.length).toBe(before);
    importer.conllSplit = 'whole'; // the number is not used: no longer in the way
    expect(importer.conllSentencesError).toBeNull();
    expect(importer.canStart).toBe(true);
  });
});
