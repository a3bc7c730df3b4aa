// "No network requests, ever", for the code the desktop app runs outside the window (whose
// requests the session blocks, electron/main/window.ts): every module reachable from the main
// process, the engine host and the worker-thread entries (the ones electron.vite.config.ts
// bundles) is read, following static and literal dynamic imports, and none may import Node's
// networking modules, Electron's `net`, or use fetch / WebSocket / XMLHttpRequest. Browser mode's
// loopback server (engine/serve) is not reachable from them: main imports only serve/data-dir.ts.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = [
  'electron/main/index.ts',
  'electron/preload/index.ts',
  'electron/engine-host/index.ts',
  'engine/runtime/worker-boot.mjs',
  'engine/tasks/jobs.ts',
];
const NETWORK_MODULES = /^(node:)?(http|https|http2|net|tls|dgram|dns|dns\/promises|undici)$/;
const NETWORK_GLOBALS = /\b(fetch|WebSocket|XMLHttpRequest|EventSource)\s*\(|\bnew\s+(WebSocket|XMLHttpRequest|EventSource)\b/;

/** Every first-party module reachable from the entries, with the bare specifiers each imports. */
function moduleGraph(entries: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const queue = entries.map((e) => join(root, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (graph.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const bare: string[] = [];
    graph.set(file, bare);
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      const spec = fileName.replace(/\?.*$/, ''); // electron-vite's ?modulePath
      if (!spec.startsWith('.')) {
        bare.push(spec);
        continue;
      }
      const target = resolve(dirname(file), spec);
      if (!existsSync(target)) throw new Error(`${relative(root, file)} imports ${spec}, which is not there`);
      if (/\.(ts|mjs|js)$/.test(target)) queue.push(target);
    }
  }
  return graph;
}

describe('desktop app code outside the window', () => {
  const graph = moduleGraph(ENTRIES);
  const files = [...graph.keys()].map((f) => relative(root, f));

  it('is followed through the engine', () => {
    // The walk is real: it reaches the runtime, the store, the tasks and the importers.
    expect(files.length).toBeGreaterThan(100);
    for (const f of ['engine/runtime/session.ts', 'engine/store/db.ts', 'engine/api/handlers.ts', 'engine/formats/pdf.ts'])
      expect(files).toContain(f);
    // Of browser mode, only the data folder's rule and the static files' path checks (file
    // system only; app:// applies them too), never its server.
    expect(files.filter((f) => f.startsWith('engine/serve/')).sort()).toEqual(['engine/serve/data-dir.ts', 'engine/serve/static.ts']);
  });

  it('imports no networking module and makes no network call', () => {
    const offending: string[] = [];
    for (const [file, bare] of graph) {
      const name = relative(root, file);
      for (const spec of bare)
        if (NETWORK_MODULES.test(spec)) offending.push(`${name} imports ${spec}`);
      const code = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
      // Comments left out: a note may name fetch().
      const text = code.statements.map((s) => s.getText(code)).join('\n');
      if (NETWORK_GLOBALS.test(text)) offending.push(`${name} uses ${NETWORK_GLOBALS.exec(text)![0]}`);
      if (/\bnet\b[^;]*from\s+'electron'|\bnet\.(fetch|request)\(/.test(text)) offending.push(`${name} uses Electron's net`);
    }
    expect(offending).toEqual([]);
  });

  it('would see a network import or call', () => {
    // The same checks on what they must catch, so that a quiet regex cannot pass the test above.
    for (const spec of ['node:https', 'http', 'node:net', 'dns/promises', 'undici']) expect(NETWORK_MODULES.test(spec), spec).toBe(true);
    for (const spec of ['node:fs', 'node:worker_threads', 'onnxruntime-node']) expect(NETWORK_MODULES.test(spec), spec).toBe(false);
    for (const call of ["await fetch('https://x')", 'new WebSocket(url)', 'globalThis.fetch (u)'])
      expect(NETWORK_GLOBALS.test(call), call).toBe(true);
  });
});
