import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModelExportReport, ModelInfo } from '../../../engine/api/contract.ts';

class FakeApiError extends Error {}
/** Answers the test releases by hand: [name, args, resolve, reject]. */
const calls: [string, unknown, (v: unknown) => void, (e: unknown) => void][] = [];
vi.mock('../../lib/api.ts', () => ({
  call: vi.fn(
    (name: string, args: unknown) =>
      new Promise((resolve, reject) => calls.push([name, args, resolve, reject])),
  ),
  messageOf: (e: unknown) => (e instanceof FakeApiError ? e.message : 'unexpected'),
}));
const { EXPORT_PHI_WARNING, ModelActions } = await import('./model-actions.svelte.ts');
const { toasts } = await import('../../lib/state/toasts.svelte.ts');
const { call } = await import('../../lib/api.ts');

function model(id: string, name = id): ModelInfo {
  return {
    id,
    name,
    architecture: 'bert',
    task: 'token-classification',
    parameters: 1,
    sizeBytes: 1,
    sha256: 'ab',
    labels: [],
    metrics: {},
    createdAt: '2026-01-01T00:00:00Z',
    phiStatus: 'no-phi',
    card: '',
    path: `models/${id}`,
    isShipped: false,
  };
}

const report: ModelExportReport = { path: '/out/a', files: ['config.json'], phiStatus: 'no-phi', namesWithheld: false };

beforeEach(() => {
  calls.length = 0;
});

describe('model rename', () => {
  it('refuses an empty or too long name before sending, as the engine would', async () => {
    const act = new ModelActions();
    const m = model('a', 'Golden');
    act.startRename(m);
    expect(act.nameDraft).toBe('Golden');
    expect(act.nameProblem).toBeNull();
    act.nameDraft = ' \t ';
    expect(await act.rename(m, () => Promise.resolve())).toBeNull();
    expect(act.renameError).toBe('A model name cannot be empty; type a name.');
    act.nameDraft = `  ${'é'.repeat(200)}  `; // 200 characters once trimmed: fine
    expect(act.nameProblem).toBeNull();
    act.nameDraft = 'e\u0301'.repeat(200); // 200 characters as the engine counts them (NFC)
    expect(act.nameProblem).toBeNull();
    act.nameDraft = '😀'.repeat(201);
    expect(act.nameProblem).toBe('A model name can have at most 200 characters; this one has 201. Shorten it.');
    expect(calls).toEqual([]);
  });

  it('shows the engine’s refusal and keeps the form open; closes it once renamed', async () => {
    const act = new ModelActions();
    const m = model('a', 'Golden');
    act.startRename(m);
    act.nameDraft = 'Taken';
    let refreshed = 0;
    const refresh = (): Promise<void> => {
      refreshed++;
      return Promise.resolve();
    };
    const first = act.rename(m, refresh);
    expect(act.isSaving).toBe(true);
    // Save name stays pressable while saving (the keyboard stays on it): a second press sends nothing.
    const again = act.rename(m, refresh);
    expect(calls.length).toBe(1);
    expect(await again).toBeNull();
    calls[0]![3](new FakeApiError('Another model is already called “Taken”; choose a name no other model has.'));
    expect(await first).toBeNull();
    expect(act.renameError).toMatch(/already called “Taken”/);
    expect(act.isRenamingModel('a')).toBe(true);
    act.nameDraft = 'Fresh';
    let release = (): void => {};
    const second = act.rename(m, () => {
      refreshed++;
      return new Promise<void>((resolve) => (release = resolve));
    });
    expect(calls[1]!.slice(0, 2)).toEqual(['models:rename', { modelId: 'a', name: 'Fresh' }]);
    calls[1]![2]({ ...m, name: 'Fresh' });
    await vi.waitFor(() => expect(refreshed).toBe(1));
    // Open until the list shows the new name: the old one never flashes back in between.
    expect(act.isRenamingModel('a')).toBe(true);
    release();
    expect((await second)?.name).toBe('Fresh');
    expect(act.isRenamingModel('a')).toBe(false);
    expect(act.renameError).toBeNull();
  });

  it('opening another model closes the forms of the one before', () => {
    const act = new ModelActions();
    act.startRename(model('a'));
    act.toggleExport(model('b'));
    expect(act.isRenamingModel('a')).toBe(false);
    expect(act.isExportingModel('b')).toBe(true);
    expect(act.isExportingModel('a')).toBe(false);
  });
});

describe('model export', () => {
  it('sends the folder and the ONNX choice, and shows what was written', async () => {
    const act = new ModelActions();
    const m = model('a');
    act.toggleExport(m);
    expect(act.canExport).toBe(false);
    act.exportPath = '  /out/a ';
    act.includeOnnx = true;
    const done = act.export(m);
    expect(act.canExport).toBe(false); // busy
    expect(calls[0]!.slice(0, 2)).toEqual(['models:export', { modelId: 'a', outPath: '/out/a', includeOnnx: true, withholdNames: false }]);
    calls[0]![2](report);
    expect(await done).toEqual(report);
    expect(act.lastExport).toEqual(report);
    expect(act.exportPath).toBe('');
  });

  it('leaves names out by default for a model whose lineage may touch patient data, as the user chooses', async () => {
    const act = new ModelActions();
    const sent = (): unknown => calls.at(-1)![1];
    act.toggleExport({ ...model('phi'), phiStatus: 'trained-on-phi' });
    expect(act.withholdNames).toBe(true);
    act.exportPath = '/out/phi';
    const first = act.export({ ...model('phi'), phiStatus: 'trained-on-phi' });
    expect(sent()).toEqual({ modelId: 'phi', outPath: '/out/phi', withholdNames: true });
    calls.at(-1)![2](report);
    await first;
    for (const status of ['distilled-from-phi-teacher', 'unknown'] as const) {
      act.toggleExport({ ...model(status), phiStatus: status });
      expect(act.withholdNames, status).toBe(true);
    }
    // A model of public data keeps its provenance by name; the user may still leave names out.
    act.toggleExport(model('public'));
    expect(act.withholdNames).toBe(false);
    act.withholdNames = true;
    act.exportPath = '/out/public';
    void act.export(model('public'));
    expect(sent()).toEqual({ modelId: 'public', outPath: '/out/public', withholdNames: true });
  });

  it('keeps the path and shows the reason when refused; a late answer does not show under another model', async () => {
    const act = new ModelActions();
    const a = model('a');
    act.toggleExport(a);
    act.exportPath = '/home/me/busy';
    const refused = act.export(a);
    calls[0]![3](new FakeApiError('/home/me/busy: folder is not empty (notes.txt)'));
    await refused;
    expect(act.exportError).toMatch(/not empty/);
    expect(act.exportPath).toBe('/home/me/busy');

    act.exportPath = '/out/a';
    const late = act.export(a);
    act.toggleExport(model('b'));
    calls[1]![2](report);
    await late;
    expect(act.lastExport).toBeNull();
    expect(act.exportError).toBeNull();

    // A late refusal is not dropped: the panel that would show it is gone, so it is a toast.
    toasts.items = [];
    act.toggleExport(a);
    act.exportPath = '/media/usb/a';
    const failed = act.export(a);
    act.toggleExport(model('b'));
    calls[2]![3](new FakeApiError('/media/usb/a: the disk is full; nothing was exported.'));
    await failed;
    expect(act.exportError).toBeNull();
    expect(toasts.items.map((t) => [t.kind, t.text])).toEqual([
      ['error', 'Nothing of “a” was exported: /media/usb/a: the disk is full; nothing was exported.'],
    ]);

    // So is one that comes after the panel was closed (Escape) on the same model.
    toasts.items = [];
    act.toggleExport(a);
    act.exportPath = '/media/usb/b';
    const unseen = act.export(a);
    act.toggleExport(a);
    expect(act.isExportingModel('a')).toBe(false);
    calls[3]![3](new FakeApiError('/media/usb/b: the disk is full; nothing was exported.'));
    await unseen;
    expect(toasts.items.map((t) => [t.kind, t.text])).toEqual([
      ['error', 'Nothing of “a” was exported: /media/usb/b: the disk is full; nothing was exported.'],
    ]);
  });

  it('warns before exporting anything but a model that learned from no patient data', () => {
    expect(EXPORT_PHI_WARNING['no-phi']).toBeNull();
    expect(EXPORT_PHI_WARNING['trained-on-phi']).toMatch(/trained on patient data/);
    expect(EXPORT_PHI_WARNING['distilled-from-phi-teacher']).toMatch(/trained on patient data/);
    expect(EXPORT_PHI_WARNING.unknown).toMatch(/Nobody recorded/);
  });
});

describe('model removal', () => {
  /** The removal as the library sends it: models:delete, answered when the test says. */
  const removal = (modelId: string): Promise<void> => call('models:delete', { modelId }).then(() => undefined);

  it('sends models:delete once and says "Removed" once when Remove is clicked again meanwhile', async () => {
    toasts.items = [];
    const act = new ModelActions();
    const a = model('a', 'Golden');
    const first = act.remove(a, removal);
    expect(act.isRemoving).toBe(true);
    expect(await act.remove(a, removal)).toBe(false); // the double click's second
    expect(calls.map(([name, args]) => [name, args])).toEqual([['models:delete', { modelId: 'a' }]]);
    calls[0]![2]({ isDeleted: true });
    expect(await first).toBe(true);
    expect(act.isRemoving).toBe(false);
    expect(toasts.items.map((t) => [t.kind, t.text])).toEqual([['success', 'Removed “Golden” and its files.']]);
  });

  it('says the refusal and can be tried again once it is answered', async () => {
    toasts.items = [];
    const act = new ModelActions();
    const a = model('a', 'Golden');
    const refused = act.remove(a, removal);
    calls[0]![3](new FakeApiError('“Golden” is being exported (Models screen); wait for the export to finish, then remove the model.'));
    expect(await refused).toBe(false);
    expect(act.isRemoving).toBe(false);
    expect(toasts.items.map((t) => [t.kind, t.text])).toEqual([
      ['error', '“Golden” is being exported (Models screen); wait for the export to finish, then remove the model.'],
    ]);
    const again = act.remove(a, removal);
    expect(calls).toHaveLength(2);
    calls[1]![2]({ isDeleted: true });
    expect(await again).toBe(true);
  });
});
