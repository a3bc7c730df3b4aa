// `npm run loc`: lines of code per top-level folder and files over the style guide's caps
// (TS module 400 soft / 600 hard, .svelte 250 / 400), in the spirit of tinygrad's sz.py.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'out', 'dist', '.git', 'test-results', '.bench', '.prof', 'resources']);
const perFolder = new Map();
const over = [];

function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(ts|svelte|mjs|js)$/.test(name)) {
      const lines = readFileSync(p, 'utf8').split('\n').filter((l) => l.trim() && !/^\s*(\/\/|\*|\/\*)/.test(l)).length;
      const rel = path.relative(ROOT, p);
      const top = rel.split(path.sep).slice(0, 2).join('/');
      perFolder.set(top, (perFolder.get(top) ?? 0) + lines);
      const isTest = /\.(test|spec)\.ts$/.test(name);
      const [soft, hard] = name.endsWith('.svelte') ? [250, 400] : [400, 600];
      if (!isTest && lines > soft) over.push(`${rel}: ${lines} lines (${lines > hard ? 'over the hard cap' : 'over the soft cap'})`);
    }
  }
}
walk(ROOT);
for (const [k, v] of [...perFolder].sort()) console.log(`${String(v).padStart(7)}  ${k}`);
console.log(`${String([...perFolder.values()].reduce((a, b) => a + b, 0)).padStart(7)}  total`);
if (over.length) console.log(`\nwarning: files over the size caps:\n  ${over.join('\n  ')}`);
