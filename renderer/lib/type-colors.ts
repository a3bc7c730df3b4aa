// The colour a new entity or relation type is offered in the schema editor: one that no type of
// the project has yet, so a new type never looks like an existing one unless the user picks it.
import type { LabelSchema } from '../../engine/api/contract.ts';

/** Distinct on the light and the dark theme, and with black or white label text. */
const SUGGESTIONS = [
  '#d6336c', '#2b8a3e', '#1c7ed6', '#e8590c', '#7048e8', '#0c8599',
  '#c2255c', '#5c940d', '#9c36b5', '#e67700', '#364fc7', '#a61e4d',
];

/** The first suggestion none of `used` has (compared without case), else the first one. */
export function unusedTypeColor(used: Iterable<string>): string {
  const taken = new Set([...used].map((c) => c.toLowerCase()));
  return SUGGESTIONS.find((c) => !taken.has(c)) ?? SUGGESTIONS[0]!;
}

/** The colour offered for a new type of `schema`'s project. */
export function newTypeColor(schema: LabelSchema): string {
  return unusedTypeColor([...schema.entityTypes, ...schema.relationTypes].map((t) => t.color));
}
