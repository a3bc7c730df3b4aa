// The app's check of a distillation's own transfer text (folders and files the user names),
// when the run starts and again each time it resumes: the files are read anew then, and may
// have changed since (notes copied in while it was stopped).
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { WITHOUT_SENTENCES, fingerprintsWithoutSentences } from '../distill/fingerprint-file.ts';
import { phiTexts } from '../store/documents.ts';
import type { LineageInput } from '../store/models.ts';
import { getRun } from '../store/runs.ts';
import { checkTransferInWorker } from '../tasks/jobs.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import type { EngineArgs } from './run-launcher.ts';

/**
 * Refuses user transfer text that is, or holds, private data: Benchtop's data folder (the
 * workspace and the runs' document snapshots), or a file that is or repeats the text of a
 * document of a dataset marked as containing PHI (in any project), or the teacher's recorded
 * training files, or of a dataset the run mixes in (`mixedIn`, dataset ids: the run checks its
 * copy of them too, but knows them only by their place). A refusal names the document as the app
 * shows it, which may hold a patient's name: it goes to the screen only (ApiError messages are
 * not logged: errors.ts). Returns what the check could not do, for the screen to say (a
 * teacher's fingerprints without sentences).
 */
export async function checkTransferFolder(ctx: ApiContext, folder: string, teacherDir: string, mixedIn: readonly number[] = []): Promise<string | undefined> {
  const real = realpathSync(folder);
  const data = realpathSync(ctx.dataDir);
  if (real === data || real.startsWith(data + sep) || data.startsWith(real + sep))
    throw new ApiError(
      'invalid',
      `${folder}: this is, or holds, Benchtop's data folder (the workspace and its documents); choose a folder of text that holds no patient information.`,
    );
  // In a worker: reading and fingerprinting the text takes about 4 s for 50 MB here, and the
  // engine keeps answering other requests and passing on events meanwhile.
  const phi = [...phiTexts(ctx.ws.read, mixedIn)];
  const check = { transfer: [folder], teacher: teacherDir, privateSha256: phi.map(({ name, sha256 }) => ({ name, sha256 })), privateTexts: phi.map(({ name, text }) => ({ name, text })) };
  try {
    await checkTransferInWorker(check);
  } catch (err) {
    throw new ApiError('invalid', (err as Error).message.replace(/: remove it from --transfer$/, ': choose text that holds none.'));
  }
  if (fingerprintsWithoutSentences(teacherDir) === undefined) return undefined;
  return `The teacher was trained before 2026-11-24: its fingerprint file ${WITHOUT_SENTENCES}. To have them checked, train the teacher again (Train screen) and distil from the new model.`;
}

/**
 * Checks a stopped distillation's transfer folders again before it resumes (train:resume). A
 * folder gone since is refused here, saying how to go on: left to the run, it failed at once with
 * "<path>: no such file or folder" and offered the same Continue again. An unknown run is left to
 * resumeRun.
 */
export async function recheckTransfer(ctx: ApiContext, runId: string): Promise<void> {
  const run = getRun(ctx.ws.read, runId);
  // A finished or running one is refused by resumeRun for that reason, not for its text.
  if (run === undefined || !['failed', 'cancelled', 'interrupted'].includes(run.status)) return;
  const { engine } = run.config as Partial<{ engine: EngineArgs }>;
  if (engine?.kind !== 'distill') return;
  const { transfer: spec, teacher } = engine.args;
  const { lineage } = run.config as Partial<{ lineage: LineageInput[] }>;
  const mixedIn = (lineage ?? []).flatMap((l) => (l.kind === 'distill-private' && l.datasetId !== undefined ? [l.datasetId] : []));
  const transfer = typeof spec === 'string' ? spec.split(',') : spec;
  for (const t of transfer) {
    if (!isAbsolute(t)) continue; // 'general', 'random': text of Benchtop's own
    if (!existsSync(t))
      throw new ApiError(
        'invalid',
        `This run cannot continue: its transfer text is no longer at ${t} (moved, renamed or deleted since the run started). Put it back there and continue, or start a new distillation.`,
      );
    try {
      await checkTransferFolder(ctx, t, teacher, mixedIn);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      throw new ApiError('invalid', `This run cannot continue: its transfer text changed since it started. ${err.message}`);
    }
  }
}
