// How a CoNLL file without -DOCSTART- lines becomes documents, chosen in the Import panel: the
// choice is asked only where the engine's look at the path found such a file (not for a PDF, a
// folder of notes or a path where nothing exists, as when it was told from the typed text), a number of
// sentences that is not a whole number from 1 is refused beside the field, and the engine is
// sent N only when one document every N sentences is chosen and applies.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ImportPathProbe } from '../../../engine/api/contract.ts';

const base = { files: 1, filesLookedAt: 1, isPartial: false, unsupported: 0, skipped: 0, conllWithoutStarts: 0 };
/** What the engine's look finds at each path used here. */
const PROBES: Record<string, ImportPathProbe> = {
  '/data/train.tsv': { ...base, kind: 'file', formats: { conll: 1 }, conllWithoutStarts: 1, conllExample: 'train.tsv' },
  '/data/docs.conll': { ...base, kind: 'file', formats: { conll: 1 } },
  '/data/report.pdf': { ...base, kind: 'file', formats: { pdf: 1 } },
  '/data/notes': { ...base, kind: 'folder', files: 2, filesLookedAt: 2, formats: { text: 2 } },
  '/data/corpora': { ...base, kind: 'folder', files: 3, filesLookedAt: 3, formats: { conll: 2, text: 1 }, conllWithoutStarts: 2, conllExample: 'ner/devel.tsv' },
  '/data/plain-text': { ...base, kind: 'missing', files: 0, filesLookedAt: 0, formats: {}, problem: 'Nothing exists at this path.' },
};

vi.mock('../api.ts', () => ({
  ApiError: Error,
  call: vi.fn((name: string, args: { path: string }) =>
    name === 'documents:import'
      ? Promise.resolve({ documentsAdded: 1, issues: [] })
      : name === 'documents:probe-path'
        ? Promise.resolve(PROBES[args.path])
        : Promise.reject(new Error(`unexpected ${name}`)),
  ),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const { call } = await import('../api.ts');
const { conllSentencesError, importer } = await import('./importer.svelte.ts');
const { PROBE_DELAY_MS, conllQuestion } = await import('./import-path.ts');

/** Types `path` and waits for the engine's look at it. */
async function typePath(path: string): Promise<void> {
  importer.path = path;
  await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
}

/** The arguments of the last documents:import request. */
const lastImport = (): Record<string, unknown> =>
  vi.mocked(call).mock.calls.filter((c) => c[0] === 'documents:import').at(-1)?.[1] as Record<string, unknown>;

beforeEach(() => {
  vi.useFakeTimers();
  importer.reset();
  importer.containsPhi = false;
});
afterEach(() => vi.useRealTimers());

describe('the choice for CoNLL files without -DOCSTART- lines', () => {
  it('is asked only where the path holds a CoNLL file without -DOCSTART- lines, in plain words', async () => {
    for (const path of ['/data/train.tsv', '/data/corpora']) {
      await typePath(path);
      expect(importer.isConllChoiceShown, path).toBe(true);
    }
    expect(conllQuestion(PROBES['/data/train.tsv']!)).toBe(
      'This file of labelled words (CoNLL) has no lines marking where one document ends and the next begins (-DOCSTART- lines). How should it become documents?',
    );
    expect(conllQuestion(PROBES['/data/corpora']!)).toBe(
      '2 files, such as ner/devel.tsv, of labelled words (CoNLL) have no lines marking where one document ends and the next begins (-DOCSTART- lines). How should each become documents?',
    );
    // A folder of notes, a PDF, a CoNLL file with -DOCSTART- lines, a path where nothing exists.
    for (const path of ['/data/notes', '/data/report.pdf', '/data/docs.conll', '/data/plain-text']) {
      await typePath(path);
      expect(importer.isConllChoiceShown, path).toBe(false);
    }
    // Not before the path was looked at.
    importer.path = '/data/train.tsv';
    expect(importer.isConllChoiceShown).toBe(false);
  });

  it('takes a whole number of sentences from 1 to 1,000,000', () => {
    for (const n of [1, 10, 100, 1_000_000]) expect(conllSentencesError(n)).toBeNull();
    for (const n of [0, -1, 2.5, 1_000_001, Number.NaN, null, undefined])
      expect(conllSentencesError(n)).toBe('Give a whole number of sentences per document, from 1 to 1,000,000.');
  });

  it('sends N only when one document every N sentences is chosen and applies', async () => {
    await typePath('/data/train.tsv');
    await importer.start();
    expect(lastImport()).not.toHaveProperty('conllSentencesPerDocument');

    importer.conllSplit = 'every';
    importer.conllSentences = 10;
    await importer.start();
    expect(lastImport()).toMatchObject({ path: '/data/train.tsv', conllSentencesPerDocument: 10 });

    // A PDF has no such choice: nothing is sent, whatever was chosen before.
    await typePath('/data/report.pdf');
    expect(importer.isConllChoiceShown).toBe(false);
    await importer.start();
    expect(lastImport()).not.toHaveProperty('conllSentencesPerDocument');
  });

  it('refuses to start with a number of sentences that cannot be used, saying why', async () => {
    await typePath('/data/train.tsv');
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
