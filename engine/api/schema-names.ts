// Project and label type names as typed on the Projects screen. A new name may not be one that
// already exists once case, Unicode composition and runs of spaces are ignored: types “Disease”
// and “disease” split one label in two, and projects “Café” and “Café” (e + accent) looked alike.
import { ApiError } from './errors.ts';
import { checkVisibleName, fold } from './model-names.ts';

/**
 * Keys the annotation editor keeps for itself (R relates two entities; the editor's
 * RESERVED_KEYS): no entity type may have one as its shortcut.
 */
export const RESERVED_SHORTCUTS: ReadonlySet<string> = new Set(['r']);

/** What two names are compared by: composed, lower case, runs of white space as one space. */
export function nameKey(name: string): string {
  return fold(name.trim().replace(/\s+/g, ' '));
}

/** A typed project name (not blank: the request check): composed (NFC), trimmed, runs of spaces made one; no hidden characters. */
export function projectName(typed: string): string {
  const name = typed.normalize('NFC').trim().replace(/\s+/g, ' ');
  checkVisibleName(name, 'A project name');
  return name;
}

/**
 * Refuses to save type `name` beside the project's `existing` type names of the same kind when
 * the schema editor's Add row (`isNew`) names a type that exists (it replaced that type's colour,
 * key and description), or when a new name differs from an existing one only in case, accent
 * encoding or spacing. Saving an existing type under its exact name updates it.
 */
export function checkTypeName(existing: readonly string[], name: string, kind: 'entity' | 'relation', isNew: boolean): void {
  const what = kind === 'entity' ? 'An entity type' : 'A relation type';
  if (existing.includes(name)) {
    if (isNew)
      throw new ApiError('conflict', `${what} named “${name}” already exists; change it in its own row, or choose another name.`);
    return;
  }
  const key = nameKey(name);
  const like = existing.find((n) => nameKey(n) === key);
  if (like !== undefined)
    throw new ApiError(
      'conflict',
      `${what} named “${like}” already exists, and “${name}” differs from it only in case or spacing; use “${like}”, or choose a clearly different name.`,
    );
}
