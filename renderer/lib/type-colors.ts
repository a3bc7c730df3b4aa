// The colour a new entity or relation type is offered in the schema editor: one that no type of
// the project has yet, so a new type never looks like an existing one unless the user picks it.
import type { LabelSchema } from '../../engine/api/contract.ts';

/** Distinct on the light and the dark theme, and with black or white label text. */
const SUGGESTIONS = [
  '#d6336c', '#2b8a3e', '#1c7ed6', '#e8590c', '#7048e8', '#0c8599',
  '#c2255c', '#5c940d', '#9c36b5', '#e67700', '#364fc7', '#a61e4d',
];

/** How far apart two `#rrggbb` colours look, roughly: their distance in RGB. */
function distance(a: string, b: string): number {
  const channels = (c: string): number[] => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
  const [x, y] = [channels(a), channels(b)];
  return Math.hypot(...x.map((v, i) => v - y[i]!));
}

/**
 * Of the suggestions none of `used` has (compared without case), the one farthest from theirs
 * (the first free one could look like a type's: #c2255c beside #d6336c); else the first one.
 */
export function unusedTypeColor(used: Iterable<string>): string {
  const taken = new Set([...used].map((c) => c.toLowerCase()));
  const shades = [...taken].filter((c) => /^#[0-9a-f]{6}$/.test(c));
  const nearest = (c: string): number => Math.min(...shades.map((u) => distance(c, u)));
  const free = SUGGESTIONS.filter((c) => !taken.has(c));
  // reduce keeps the earlier suggestion on a tie (and the first one when nothing is taken).
  return free.length > 0 ? free.reduce((best, c) => (nearest(c) > nearest(best) ? c : best)) : SUGGESTIONS[0]!;
}

/** The colour offered for a new type of `schema`'s project. */
export function newTypeColor(schema: LabelSchema): string {
  return unusedTypeColor([...schema.entityTypes, ...schema.relationTypes].map((t) => t.color));
}
