// The package's version, as `benchtop --version` prints it and browser mode reports it.

import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The "version" of Benchtop's package.json. */
export function packageVersion(): string {
  const file = path.resolve(import.meta.dirname, '../package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error(`${file}: has no "version"`);
  return pkg.version;
}
