import { describe, expect, it, vi } from 'vitest';
import type { ModelLineageInfo } from '../../../engine/api/contract.ts';

/** Lineage answers the test releases by hand, in any order. */
const pending = new Map<string, (l: ModelLineageInfo) => void>();
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string, args: { modelId?: string }) =>
    name === 'models:get-lineage'
      ? new Promise((resolve) => pending.set(args.modelId!, resolve))
      : Promise.resolve(name === 'app:get-info' ? { dataDir: '/data' } : []),
  ),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
const { models } = await import('./models.svelte.ts');

function lineage(modelId: string, containsPhi: boolean): ModelLineageInfo {
  const vocabulary = { origin: 'shipped', isRecorded: true, summary: 'x', caveat: null, tokens: 1, sha256: null } as const;
  return { modelId, entries: [], ancestors: [], derivedPhiStatus: containsPhi ? 'trained-on-phi' : 'no-phi', containsPhi, vocabulary };
}

describe('models state', () => {
  it('shows the lineage of the model selected last, even when an earlier answer arrives later', async () => {
    const first = models.select('phi-model');
    const second = models.select('clean-model');
    pending.get('clean-model')!(lineage('clean-model', false));
    await second;
    pending.get('phi-model')!(lineage('phi-model', true));
    await first;
    expect(models.selectedId).toBe('clean-model');
    expect(models.lineage?.modelId).toBe('clean-model');
  });

  it('refetches the selected model’s lineage when the library changes (a rename shows in it)', async () => {
    const selecting = models.select('renamed');
    pending.get('renamed')!({ ...lineage('renamed', false), entries: [{ modelName: 'Old name', depth: 0, path: 'direct', kind: 'fine-tune', source: 'x', datasetName: null, datasetId: null, weight: null, containsPhi: false }] });
    await selecting;
    pending.clear();
    const refreshing = models.refresh();
    await vi.waitFor(() => expect(pending.has('renamed')).toBe(true));
    expect(models.lineage?.entries[0]?.modelName).toBe('Old name'); // kept until the answer
    pending.get('renamed')!({ ...lineage('renamed', false), entries: [{ modelName: 'New name', depth: 0, path: 'direct', kind: 'fine-tune', source: 'x', datasetName: null, datasetId: null, weight: null, containsPhi: false }] });
    await refreshing;
    expect(models.lineage?.entries[0]?.modelName).toBe('New name');
  });
});
