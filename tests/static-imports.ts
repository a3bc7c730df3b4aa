// Test-only: the engine modules a module loads through static value imports, read from the source
// (type-only imports left out). Used to hold entry points (the task worker, the CLI) to loading
// onnxruntime, the training stack and the document readers only once a job or command needs them.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ENGINE = path.resolve(import.meta.dirname, '..', 'engine');

/** Every engine module `entry` loads through static value imports (itself included), relative to engine/. */
export function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(path.join(ENGINE, file), 'utf8');
    // `import … from '…'` and `export … from '…'`, not `import type` / `export type`.
    for (const m of source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\bfrom\s+'(\.[^']+\.ts)'/gms)) {
      visit(path.relative(ENGINE, path.resolve(ENGINE, path.dirname(file), m[1] as string)));
    }
    for (const m of source.matchAll(/^import\s+'(\.[^']+\.ts)'/gm)) {
      visit(path.relative(ENGINE, path.resolve(ENGINE, path.dirname(file), m[1] as string)));
    }
  };
  visit(entry);
  return seen;
}
