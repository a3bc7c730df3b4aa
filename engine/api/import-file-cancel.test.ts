// Cancelling a workbench import while one large file is read: a PDF checks the cancel before each
// page (and while its streams are counted), a DOCX before each of its parts, as each unpacks and
// while the reader's worker parses it, so the import stops inside the file, keeping nothing,
// instead of after the whole file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mammoth from 'mammoth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DOCX_READER_IN_WORKER_FROM, docxUnpackProblem } from '../formats/docx.ts';
import { buildDocx, buildPdf } from '../formats/test-fixtures.ts';
import { JobRegistry } from './job-registry.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-import-file-cancel-', { inSubfolder: true });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t.close();
});

/**
 * Imports `file` into a new project, pressing Cancel when the import looks at its cancel flag the
 * `cancelAt`th time (the file is being read by then), through the API like any other request;
 * checks the import ended cancelled with nothing kept. Returns how many times the flag was read.
 */
async function importCancelledPartWay(file: string, importId: string, cancelAt = 5): Promise<number> {
  const { id: projectId } = await t.call('projects:create', { name: importId });
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the registry as `this`
  const isCancelled = JobRegistry.prototype.isImportCancelled;
  let asked: Promise<{ isCancelling: boolean }> | undefined;
  const checks = vi.spyOn(JobRegistry.prototype, 'isImportCancelled').mockImplementation(function (this: JobRegistry, id: string) {
    if (checks.mock.calls.length === cancelAt && !asked) asked = t.call('documents:cancel-import', { importId });
    return isCancelled.call(this, id);
  });
  const reply = await t.invoke('documents:import', { projectId, path: file, containsPhi: true, importId });
  expect(await asked).toEqual({ isCancelling: true });
  expect(reply).toMatchObject({ ok: false, error: { code: 'cancelled', message: 'The import was cancelled; none of it was kept.' } });
  expect((await t.call('documents:list', { projectId })).total).toBe(0);
  expect(await t.call('datasets:list', { projectId })).toEqual([]);
  return checks.mock.calls.length;
}

describe('cancelling an import during one file', () => {
  it('stops between the pages of a PDF and keeps nothing', async () => {
    const pages = 300;
    const file = join(t.dir, 'chart.pdf');
    writeFileSync(file, buildPdf([['Discharge summary page.']], { repeat: pages }));
    expect(await importCancelledPartWay(file, 'pdf-cancel')).toBeLessThan(pages); // not after the last page
  });

  it('stops while the parts of a DOCX unpack and keeps nothing', async () => {
    const file = join(t.dir, 'summary.docx');
    writeFileSync(file, buildDocx(Array.from({ length: 2_000 }, (_, i) => `Line ${i} of a long discharge summary. `.repeat(6))));
    const reader = vi.spyOn(mammoth, 'convertToHtml');
    await importCancelledPartWay(file, 'docx-cancel');
    expect(reader).not.toHaveBeenCalled(); // stopped inside the file, before the reader had it
  });

  it('stops while the reader parses a large DOCX in its worker and keeps nothing', async () => {
    const file = join(t.dir, 'summary.docx');
    const docx = buildDocx(Array.from({ length: 12_000 }, (_, i) => `Line ${i} of a long discharge summary. `.repeat(8)));
    writeFileSync(file, docx);
    let unpackChecks = 0;
    expect(await docxUnpackProblem(docx, undefined, () => unpackChecks++)).toBeUndefined();
    expect(docx.length).toBeLessThan(DOCX_READER_IN_WORKER_FROM); // read in a worker for its unpacked size
    // One check before the file, those as it unpacks, then the worker's: Cancel at its 16th
    // (0.8 s in; the whole read takes seconds), seen within the next few.
    const cancelAt = 1 + unpackChecks + 16;
    expect(await importCancelledPartWay(file, 'docx-reader-cancel', cancelAt)).toBeLessThanOrEqual(cancelAt + 3);
  });
});
