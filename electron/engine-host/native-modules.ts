// Native code that does not load (an installation built without the Electron rebuild of
// better-sqlite3, onnxruntime's library missing or quarantined by an antivirus) is the
// installation's fault, not the workspace's: the user gets one message saying so, instead of
// the store's "choose another data folder" or Node's advice to run `npm rebuild`.

/** The native modules of the engine host, found by the file names in their load errors. */
const MODULES = [
  { file: /better[_-]sqlite3/i, what: 'its database module (better-sqlite3)' },
  { file: /onnxruntime/i, what: 'its model runtime (onnxruntime-node)' },
];
/** How many `cause`s deep a load error is looked for (the store wraps what SQLite threw). */
const MAX_CAUSES = 8;

/** The text of `err` when it is a native module failing to load, else null. */
function loadErrorText(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  // Node's dlopen refusals: not a shared library, a missing dependency, another ABI.
  if (code === 'ERR_DLOPEN_FAILED') return err.message;
  // The `bindings` package (better-sqlite3's loader) finding no .node file at all.
  if (err.message.startsWith('Could not locate the bindings file')) return err.message;
  // require() of a .node file that is not there.
  if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && /\.node\b/.test(err.message))
    return err.message;
  return null;
}

/**
 * The message for the user when `err`, or an error it was caused by, is a native module of the
 * engine that could not be loaded; null for any other error. The message names the module, not
 * its path; the full load error goes to stderr for whoever built the installation.
 */
export function nativeModuleFailure(err: unknown): string | null {
  let at: unknown = err;
  for (let depth = 0; depth <= MAX_CAUSES && at instanceof Error; depth++, at = at.cause) {
    const text = loadErrorText(at);
    if (text === null) continue;
    console.error(`Benchtop engine: a native module did not load: ${text}`);
    const what = MODULES.find((m) => m.file.test(text))?.what ?? 'one of its native modules';
    return `Benchtop could not load ${what}, so the engine cannot start: this installation is damaged, or was built for another version of Electron. Reinstall Benchtop; the workspace was not opened and is kept as it is.`;
  }
  return null;
}
