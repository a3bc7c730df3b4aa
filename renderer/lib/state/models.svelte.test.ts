import { describe, expect, it, vi } from 'vitest';
import type { ModelLineageInfo } from '../../../engine/api/contract.ts';

/** Lineage answers the test releases by hand, in any order. */
const pending = new Map<string, (l: ModelLineageInfo) => void>();
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string, args: { modelId?: string }) =>
    name === 'models:get-lineage'
      ? new Promise((resolve) => pending.set(args.modelId!, resolve))
      : Promise.resolve([]),
  ),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
const { models } = await import('./models.svelte.ts');

function lineage(modelId: string, containsPhi: boolean): ModelLineageInfo {
  return { modelId, entries: [], ancestors: [], derivedPhiStatus: containsPhi ? 'trained-on-phi' : 'no-phi', containsPhi };
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
});
