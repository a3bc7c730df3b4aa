// Cancelling a workbench import while one large DOCX is read: the cancel is checked before each
// of its parts and as each unpacks, so it stops the import inside the file, before the DOCX reader
// is given it, instead of after the whole file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mammoth from 'mammoth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildDocx } from '../formats/test-fixtures.ts';
import { JobRegistry } from './job-registry.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-docx-cancel-', { inSubfolder: true });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t.close();
});

describe('cancelling an import during one DOCX', () => {
  it('stops while its parts unpack and keeps nothing', async () => {
    const { id: projectId } = await t.call('projects:create', { name: 'Long letter' });
    const file = join(t.dir, 'summary.docx');
    writeFileSync(file, buildDocx(Array.from({ length: 2_000 }, (_, i) => `Line ${i} of a long discharge summary. `.repeat(6))));
    const reader = vi.spyOn(mammoth, 'convertToHtml');
    const importId = 'docx-cancel';
    // The user presses Cancel once the import has looked at its cancel flag a few times (the
    // file's parts are unpacking by then): the request goes through the API like any other.
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
    expect(reader).not.toHaveBeenCalled(); // stopped inside the file, before the reader had it
    expect((await t.call('documents:list', { projectId })).total).toBe(0);
    expect(await t.call('datasets:list', { projectId })).toEqual([]);
  });
});
