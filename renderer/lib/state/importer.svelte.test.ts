// Cancelling an import from the Documents screen: the engine is asked to stop, and its
// 'cancelled' answer is shown as a cancellation, not as a failed import.
import { describe, expect, it, vi } from 'vitest';
import { FakeApiError } from '../test-hand-api.ts';

let rejectImport: (err: unknown) => void = () => {};
vi.mock('../api.ts', () => ({
  ApiError: FakeApiError,
  call: vi.fn((name: string) => {
    if (name === 'documents:import') return new Promise((_resolve, reject) => (rejectImport = reject));
    if (name === 'documents:cancel-import') return Promise.resolve({ isCancelling: true });
    return Promise.reject(new Error(`unexpected ${name}`));
  }),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  on: () => () => {},
}));
vi.mock('./app.svelte.ts', () => ({ app: { projectId: 1 } }));
const { call } = await import('../api.ts');
const { importer } = await import('./importer.svelte.ts');

describe('importer.cancel', () => {
  it('asks the engine to stop this import and reports a cancellation, not an error', async () => {
    importer.path = '/home/me/notes';
    importer.containsPhi = true;
    const started = importer.start();
    expect(importer.isRunning).toBe(true);
    await importer.cancel();
    const importId = (vi.mocked(call).mock.calls.find((c) => c[0] === 'documents:import')?.[1] as { importId: string }).importId;
    expect(vi.mocked(call)).toHaveBeenCalledWith('documents:cancel-import', { importId });
    expect(importer.isCancelling).toBe(true);
    rejectImport(new FakeApiError('cancelled', 'The import was cancelled; none of it was kept.'));
    expect(await started).toBeNull();
    expect(importer.wasCancelled).toBe(true);
    expect(importer.error).toBeNull();
    expect(importer.isRunning).toBe(false);
    expect(importer.isCancelling).toBe(false);
  });

  it('refuses a dataset name over 200 characters beside the field, before asking the engine', () => {
    importer.path = '/home/me/notes';
    importer.containsPhi = false;
    importer.datasetName = 'x'.repeat(201);
    expect(importer.datasetNameError).toBe('A dataset name can have at most 200 characters; this one has 201. Shorten it.');
    expect(importer.canStart).toBe(false);
    importer.datasetName = ` ${'x'.repeat(200)} `; // trimmed, as it is sent
    expect(importer.datasetNameError).toBeNull();
    expect(importer.canStart).toBe(true);
    importer.datasetName = '';
  });
});
