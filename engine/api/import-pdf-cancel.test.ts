// Cancelling a workbench import while one long PDF is read: the cancel is checked before each
// page, so it stops the import part-way through the file instead of after its last page.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildPdf } from '../formats/test-fixtures.ts';
import { JobRegistry } from './job-registry.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-pdf-cancel-', { inSubfolder: true });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t.close();
});

describe('cancelling an import during one PDF', () => {
  it('stops between its pages and keeps nothing', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Long PDF' });
    const pages = 300;
    const file = join(t.dir, 'chart.pdf');
    writeFileSync(file, buildPdf([['Discharge summary page.']], { repeat: pages }));
    const importId = 'pdf-cancel';
    // The user presses Cancel once the import has looked at its cancel flag a few times (the
    // file's pages are being read by then): the request goes through the API like any other.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the registry as `this`
    const isCancelled = JobRegistry.prototype.isImportCancelled;
    let asked: Promise<{ isCancelling: boolean }> | undefined;
    const checks = vi.spyOn(JobRegistry.prototype, 'isImportCancelled').mockImplementation(function (this: JobRegistry, id: string) {
      if (checks.mock.calls.length === 5 && !asked) asked = t.call('documents:cancel-import', { importId });
      return isCancelled.call(this, id);
    });
    const reply = await t.invoke('documents:import', { projectId, path: file, containsPhi: true, importId });
    expect(await asked).toEqual({ isCancelling: true });
    expect(reply).toMatchObject({ ok: false, error: { code: 'cancelled', message: 'The import was cancelled; none of it was kept.' } });
    expect(checks.mock.calls.length).toBeLessThan(pages); // stopped part-way, not after the last page
    expect((await t.call('documents:list', { projectId })).total).toBe(0);
    expect(await t.call('datasets:list', { projectId })).toEqual([]);
  });
});
