// schema:rename-type: renames a type, or, where the new name is another type's of that kind
// (or differs from it only in case, accent encoding or spacing), merges the one into the other
// once asked: older workspaces and imports kept “disease” beside “Disease”, and a rename alone
// could not clean them up. Also the check that a type's row saves over no change made in another
// window.
import type { ReadDb, WriteDb } from '../store/db.ts';
import { getLabelSchema } from '../store/projects.ts';
import { mergeEntityType, mergePreview, mergeRelationType, renameEntityType, renameRelationType } from '../store/type-rename.ts';
import type { Args, EntityType, RelationType } from './contract.ts';
import { ApiError } from './errors.ts';
import { typeName } from './model-names.ts';
import { checkTypeName, nameKey } from './schema-names.ts';

/**
 * Renames type `a.name` to `a.newName`, or merges it into the type that name is taken by: asked
 * first ('exists', saying what the merge moves), done with `merge`. Returns false when nothing
 * changed (its own name again).
 */
export function renameOrMergeType(read: ReadDb, write: WriteDb, a: Args<'schema:rename-type'>): boolean {
  const what = a.kind === 'entity' ? 'An entity type' : 'A relation type';
  const newName = typeName(a.newName, `${what} name`);
  const schema = getLabelSchema(read, a.projectId);
  const names = (a.kind === 'entity' ? schema.entityTypes : schema.relationTypes).map((t) => t.name);
  const into = mergeTarget(names.filter((n) => n !== a.name), newName, what);
  if (into === undefined) {
    // Its own name in another case or spacing is a correction, not a clash.
    checkTypeName(names.filter((n) => n !== a.name), newName, a.kind, true);
    if (newName === a.name && names.includes(a.name)) return false; // nothing to do
    if (a.kind === 'entity') renameEntityType(write, a.projectId, a.name, newName);
    else renameRelationType(write, a.projectId, a.name, newName);
    return true;
  }
  if (a.merge !== true && names.includes(a.name)) {
    const moved = mergePreview(read, a.kind, a.projectId, a.name, into);
    const noun = a.kind === 'entity' ? 'annotation' : 'relation';
    const many = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
    const twins =
      moved.twins === 0
        ? ''
        : ` ${many(moved.twins, noun)} of them ${a.kind === 'entity' ? 'cover the same text as' : 'join the same two as'} a “${into}” one in ${moved.twins === 1 ? 'its' : 'their'} document: both are kept.`;
    throw new ApiError(
      'exists',
      `${what} named “${into}” already exists. Merge “${a.name}” into “${into}”? Its ${many(moved.annotations, noun)} in ${many(moved.documents, 'document')} become “${into}”${a.kind === 'entity' ? ', the relation rules naming it name “' + into + '”,' : ''} and “${a.name}” is removed.${twins}`,
    );
  }
  if (a.kind === 'entity') mergeEntityType(write, a.projectId, a.name, into);
  else mergeRelationType(write, a.projectId, a.name, into);
  return true;
}

/**
 * The type of `others` that `newName` names: that very name, or the one name it differs from
 * only in case, accent encoding or spacing. Several such (older workspaces): refused, asking for
 * the exact name.
 */
function mergeTarget(others: readonly string[], newName: string, what: string): string | undefined {
  if (others.includes(newName)) return newName;
  const like = others.filter((n) => nameKey(n) === nameKey(newName));
  if (like.length > 1)
    throw new ApiError('conflict', `${what} named ${like.map((n) => `“${n}”`).join(' and ')} already exist; type the exact name of the one to merge into.`);
  return like[0];
}

/**
 * Refuses to save over a change made since the screen last saw the type (`previous`), say in
 * another window: 'not-found' when it was renamed or removed, 'conflict' when what its row shows
 * changed (an entity type's colour, key or description; a relation type's colour, argument types
 * or direction, its types in any order).
 */
export function checkUnchanged(types: readonly EntityType[], previous: EntityType): void;
export function checkUnchanged(types: readonly RelationType[], previous: RelationType): void;
export function checkUnchanged(types: readonly (EntityType | RelationType)[], previous: EntityType | RelationType): void {
  const now = types.find((t) => t.name === previous.name);
  if (now === undefined)
    throw new ApiError('not-found', `“${previous.name}” was renamed or removed in another window; reload to see the label schema as it is now.`);
  if (rowFields(now) === rowFields(previous)) return;
  const what = 'arg1Types' in previous ? 'colour, argument types and direction' : 'colour, key and description';
  throw new ApiError('conflict', `“${previous.name}” was changed in another window; reload to see its ${what} as they are now, then make your change again.`);
}

/** What a type's row shows, as one comparable string. */
function rowFields(t: EntityType | RelationType): string {
  if ('arg1Types' in t)
    return JSON.stringify([t.color.toLowerCase(), [...t.arg1Types].sort(), [...t.arg2Types].sort(), t.symmetric]);
  return JSON.stringify([t.color.toLowerCase(), t.shortcut ?? '', t.description ?? '']);
}
