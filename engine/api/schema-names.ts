// Project and label type names as typed on the Projects screen. A new name may not be one that
// already exists once case, Unicode composition and runs of spaces are ignored: types “Disease”
// and “disease” split one label in two, and projects “Café” and “Café” (e + accent) looked alike.
import type { Document } from '../formats/types.ts';
import type { LabelSchema } from '../store/projects.ts';
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

/**
 * Reads an import's type names as the project's: a name that differs from a type of the project,
 * or from one read earlier in the same import, only in case, accent encoding or spacing is that
 * type (“disease” beside “Disease” would be a second type the Add row refuses). Each name read so
 * is said once per import.
 */
export class ImportTypeNames {
  readonly #names = { entity: new Map<string, string>(), relation: new Map<string, string>() };
  readonly #said = new Set<string>();

  constructor(schema: LabelSchema) {
    for (const t of schema.entityTypes) this.#names.entity.set(nameKey(t.name), t.name);
    for (const t of schema.relationTypes) this.#names.relation.set(nameKey(t.name), t.name);
  }

  /** `doc` with its entity and relation types read as the project's, and what to say about names read so for the first time. */
  read<D extends Document>(doc: D): { doc: D; notes: string[] } {
    const notes: string[] = [];
    const entities = doc.entities.map((e) => ({ ...e, type: this.#spell('entity', e.type, notes) }));
    const relations = doc.relations.map((r) => ({ ...r, type: this.#spell('relation', r.type, notes) }));
    return { doc: { ...doc, entities, relations }, notes };
  }

  #spell(kind: 'entity' | 'relation', name: string, notes: string[]): string {
    const names = this.#names[kind];
    const key = nameKey(name);
    const known = names.get(key);
    if (known === undefined) names.set(key, name);
    if (known === undefined || known === name) return name;
    if (!this.#said.has(`${kind}\u0000${name}`)) {
      this.#said.add(`${kind}\u0000${name}`);
      notes.push(
        `the file's ${kind === 'relation' ? 'relation type ' : ''}“${name}” was read as the project's “${known}” (type names that differ only in case, accent encoding or spacing are one type)`,
      );
    }
    return known;
  }
}
