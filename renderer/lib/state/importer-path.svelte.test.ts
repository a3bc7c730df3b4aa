// The Import panel looks at the path typed (documents:probe-path) once typing pauses, asks once
// for the last path (an earlier path's late answer is dropped), holds Import while nothing can be
// imported from the path (said first, and looked at again on Check again), and says what the path
// holds in plain words with the format's name in brackets.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ImportPathProbe } from '../../../engine/api/contract.ts';

const base = { files: 1, filesLookedAt: 1, isPartial: false, unsupported: 0, skipped: 0, conllWithoutStarts: 0, formats: {} };
const missing: ImportPathProbe = { ...base, kind: 'missing', files: 0, filesLookedAt: 0, problem: 'Nothing exists at this path.' };
const notes: ImportPathProbe = { ...base, kind: 'folder', files: 2, filesLookedAt: 2, formats: { text: 2 } };
/** The engine's answers: a function of the path, changed by a test; `slow` paths answer when released. */
let answer: (path: string) => ImportPathProbe = () => notes;
const slow = new Map<string, () => void>();

vi.mock('../api.ts', () => ({
  ApiError: Error,
  call: vi.fn((name: string, args: { path: string }) => {
    if (name === 'documents:import') return Promise.resolve({ documentsAdded: 1, issues: [] });
    if (name !== 'documents:probe-path') return Promise.reject(new Error(`unexpected ${name}`));
    if (args.path === '/broken') return Promise.reject(new Error('The engine stopped.'));
    const value = answer(args.path);
    return slow.has(args.path) ? new Promise((r) => slow.set(args.path, () => r(value))) : Promise.resolve(value);
  }),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const { call } = await import('../api.ts');
const { importer } = await import('./importer.svelte.ts');
const { PROBE_DELAY_MS, defaultDatasetName, probeSummary } = await import('./import-path.ts');

const probesAsked = (): string[] =>
  vi.mocked(call).mock.calls.filter((c) => c[0] === 'documents:probe-path').map((c) => (c[1] as { path: string }).path);

beforeEach(() => {
  vi.useFakeTimers();
  vi.mocked(call).mockClear();
  answer = () => notes;
  slow.clear();
  importer.reset();
  importer.containsPhi = false;
});
afterEach(() => vi.useRealTimers());

describe('the look at the path typed', () => {
  it('asks once typing pauses, for the last path only', async () => {
    for (const p of ['/d', '/da', '/data', '/data/notes']) {
      importer.path = p;
      await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS / 3);
    }
    expect(probesAsked()).toEqual([]);
    await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
    expect(probesAsked()).toEqual(['/data/notes']);
    expect(importer.pathLook?.probe).toEqual(notes);
    // Named, so that the engine stops this window's earlier look when the next is asked.
    importer.path = '/data/other';
    await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
    const ids = vi.mocked(call).mock.calls.filter((c) => c[0] === 'documents:probe-path').map((c) => (c[1] as { probeId?: string }).probeId);
    expect(ids).toEqual([expect.any(String), ids[0]]);
  });

  it('drops the late answer for a path typed before the last', async () => {
    slow.set('/data/old', () => {});
    answer = (p) => (p === '/data/old' ? missing : notes);
    importer.path = '/data/old';
    await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
    importer.path = '/data/notes';
    await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
    slow.get('/data/old')!(); // the missing path's answer comes last
    await vi.advanceTimersByTimeAsync(0);
    expect(importer.pathLook).toEqual({ path: '/data/notes', probe: notes, error: null });
    expect(importer.pathProblem).toBeNull();
    expect(importer.canStart).toBe(true);
  });

  it('holds Import where nothing exists, until the path is there (Check again)', async () => {
    answer = () => missing;
    importer.path = '/data/plain-text';
    expect(importer.canStart).toBe(true); // not held while it is looked at: the import says the same
    await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
    expect(importer.pathProblem).toBe('Nothing exists at this path.');
    expect(importer.canStart).toBe(false);
    expect(await importer.start()).toBeNull();
    expect(vi.mocked(call).mock.calls.some((c) => c[0] === 'documents:import')).toBe(false);

    answer = () => notes; // the folder was made in the file manager
    importer.recheck();
    await vi.advanceTimersByTimeAsync(0);
    expect(importer.pathProblem).toBeNull();
    expect(importer.canStart).toBe(true);
  });

  it('does not hold Import when the engine could not look (the import says what it finds)', async () => {
    importer.path = '/broken';
    await vi.advanceTimersByTimeAsync(PROBE_DELAY_MS);
    expect(importer.pathLook).toEqual({ path: '/broken', probe: null, error: 'The engine stopped.' });
    expect(importer.canStart).toBe(true);
  });
});

describe('what the panel says the path holds', () => {
  it('names formats in plain words, the technical name in brackets', () => {
    expect(probeSummary({ ...base, kind: 'file', formats: { conll: 1 } })).toBe('A file of labelled words, one a line (CoNLL).');
    expect(probeSummary({ ...base, kind: 'file', formats: { pubtator: 1 } })).toBe('A file of abstracts with annotations (PubTator).');
    expect(probeSummary({ ...base, kind: 'file', formats: { text: 1 } })).toBe('A plain-text note, read as one document.');
    expect(
      probeSummary({
        ...base,
        kind: 'folder',
        files: 4,
        filesLookedAt: 4,
        formats: { text: 2, brat: 1 },
        unsupported: 1,
        unsupportedExample: { file: 'orphan.ann', reason: 'an annotation file (.ann) is read only with its .txt beside it' },
      }),
    ).toBe(
      'A folder of 4 files: 2 plain-text notes; 1 annotated note (brat: a .txt with its .ann); 1 of a kind Benchtop does not read, such as orphan.ann (an annotation file (.ann) is read only with its .txt beside it).',
    );
    // Notes the import skips are not counted as notes (it said "5 plain-text notes" of these).
    expect(
      probeSummary({
        ...base,
        kind: 'folder',
        files: 5,
        filesLookedAt: 5,
        formats: { text: 3 },
        skipped: 2,
        skippedExample: { file: 'blank.txt', reason: 'empty, or only blank lines' },
      }),
    ).toBe('A folder of 5 files: 3 plain-text notes; 2 that will be skipped, such as blank.txt (empty, or only blank lines).');
    expect(probeSummary({ ...base, kind: 'folder', files: 20_000, filesLookedAt: 500, isPartial: true, formats: { text: 500 } })).toBe(
      'A folder of more than 20,000 files (of the first 500): 500 plain-text notes.',
    );
  });

  it('names the dataset an import makes when none is typed, as the engine does', () => {
    expect(defaultDatasetName('/home/me/ward notes/')).toBe('ward notes');
    expect(defaultDatasetName('/data/ncbi/train.tsv')).toBe('train');
    expect(defaultDatasetName('C:\\data\\CDR.PubTator.txt')).toBe('CDR.PubTator');
    expect(defaultDatasetName('  ')).toBe('');
  });
});
