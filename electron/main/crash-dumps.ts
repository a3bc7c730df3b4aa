// Crash dumps stay on this machine, in Benchtop's own folder, readable by its user only. Without
// Electron's crash reporter a crash of main, a window, the engine host or its worker threads goes
// to the system's handler (Windows Error Reporting, macOS ReportCrash, apport), which may send it
// on. A dump holds memory, so possibly patient text: Benchtop never uploads one (no URL is given
// to Crashpad at all), keeps none outside <userData>/Crash Dumps (never in the workspace, so no
// export or backup of it carries one), and deletes dumps older than KEEP_DAYS at each start.
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { app, crashReporter, dialog } from 'electron';

/** Long enough for someone on site to look at a crash from last week; no longer. */
export const KEEP_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The crash-dumps folder: beside the workspace in userData, not in it. */
export function crashDumpsDir(userData: string): string {
  return join(userData, 'Crash Dumps');
}

/**
 * Creates the folder owner-only (0700 on POSIX; on Windows it inherits the per-user ACL of
 * LOCALAPPDATA), and makes an existing one owner-only. Throws when the path is not a plain
 * folder: a link would send the dumps elsewhere.
 */
export function prepareCrashDumpsDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a folder (a link or a file is there)`);
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
}

/**
 * Deletes Crashpad's dumps (.dmp), their metadata (.meta) and attachments last written more than
 * maxAgeMs before `now`, anywhere under dir; Crashpad's own settings stay. Links are not
 * followed. Returns the paths (files or folders) it could not delete or look into: locked
 * (Windows), or left by a Benchtop run as another user; the caller says so and the next start
 * tries again. Never throws for them: this runs before Benchtop opens anything.
 */
export function removeOldCrashDumps(dir: string, now: number, maxAgeMs = KEEP_DAYS * DAY_MS): string[] {
  const failed: string[] = [];
  const walk = (folder: string, inAttachments: boolean): void => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      failed.push(folder);
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      try {
        if (entry.isDirectory()) {
          const isAttachments = inAttachments || entry.name === 'attachments';
          walk(path, isAttachments);
          // An attachments/<report> folder emptied here goes too.
          if (inAttachments && readdirSync(path).length === 0) rmdirSync(path);
        } else if (entry.isFile() && (inAttachments || /\.(dmp|meta)$/.test(entry.name))) {
          if (statSync(path).mtimeMs < now - maxAgeMs) unlinkSync(path);
        }
      } catch {
        if (!failed.includes(path)) failed.push(path);
      }
    }
  };
  walk(dir, false);
  return failed;
}

/**
 * Must run before app 'ready' (every process started afterwards is watched) and once the single
 * instance lock is held (a second launch must not delete what the first one's Crashpad is
 * writing). False when Benchtop must not start (it has said why): its crashes would go to the
 * system's handler.
 */
export function keepCrashDumpsLocal(userData: string, now = Date.now()): boolean {
  const dir = crashDumpsDir(userData);
  try {
    prepareCrashDumpsDir(dir);
  } catch (err) {
    // Node's message names the call and the path; its code says what is wrong in one word.
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code ?? (err instanceof Error ? err.message : String(err));
    // Before 'ready' this is a dialog on macOS and Windows, a line on stderr on Linux.
    dialog.showErrorBox(
      'Benchtop did not start',
      `Benchtop could not prepare its crash-dump folder ${dir} (${reason}). Make sure ${userData} belongs to you and can be written, then start Benchtop again.`,
    );
    return false;
  }
  for (const path of removeOldCrashDumps(dir, now)) {
    console.warn(`Benchtop: old crash dumps could not be deleted at ${path}`);
  }
  app.setPath('crashDumps', dir);
  // No submitURL: Crashpad's handler gets no URL and starts no upload thread at all, whatever
  // setUploadToServer might later say (nothing in Benchtop calls it). No extra annotations:
  // the defaults are product name and versions. ignoreSystemCrashHandler: main's crashes are
  // not handed on to ReportCrash (macOS) or the Linux system handler once Crashpad has its dump.
  crashReporter.start({ uploadToServer: false, ignoreSystemCrashHandler: true });
  return true;
}
