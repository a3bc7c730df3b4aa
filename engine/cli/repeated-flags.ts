// A flag that takes a value, given twice with different values: Node's parser kept the last one
// without a word, so `train … --out models/a … --out models/b` wrote to b and
// `predict --input notes --input more-notes` read only the second folder.

import type { parseArgs } from 'node:util';
import { UsageError } from './args.ts';

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** Flags that take a list joined by commas, where a second use is a list the user meant to join. */
const COMMA_LISTS = new Set(['transfer', 'text', 'labels', 'layer-map']);

/**
 * Throws a UsageError naming the first value-taking flag given more than once with different
 * values (the values are not quoted: they may be paths naming a patient). The same value twice,
 * and a repeated switch (--overwrite --overwrite), change nothing and pass.
 */
export function refuseRepeatedFlags(tokens: readonly Token[]): void {
  const seen = new Map<string, string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.value === undefined) continue;
    const before = seen.get(t.name);
    if (before !== undefined && before !== t.value) {
      const join = COMMA_LISTS.has(t.name) ? ' (to give several, join them with commas in one --' + t.name + ')' : '';
      throw new UsageError(`--${t.name} is given twice with different values; give it once${join}`);
    }
    seen.set(t.name, t.value);
  }
}
