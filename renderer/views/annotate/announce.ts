// What the annotation editor says to a screen reader after a key press: a snapshot of the editor
// state that matters, and one plain sentence for the change between two snapshots. Derived from
// state rather than called from each action, so mouse and keyboard edits read the same. It never
// quotes more of the text than an entity's own mention (or the pending selection).
import type { EntityRecord, RelationRecord } from '../../../engine/api/contract.ts';
import type { AnnotationEditor, EditorMode } from './editor.svelte.ts';

interface EntityView {
  key: string;
  type: string;
  text: string;
  isSuggested: boolean;
}

interface RelationView {
  key: string;
  type: string;
  from: string;
  to: string;
  isSuggested: boolean;
}

export interface EditorSnapshot {
  selected: (EntityView & { index: number; count: number }) | null;
  pending: string | null;
  mode: EditorMode;
  source: EntityView | null;
  target: (EntityView & { index: number; count: number }) | null;
  type: { name: string; index: number; count: number } | null;
  relation: RelationView | null;
  entityKeys: ReadonlySet<string>;
  relationKeys: ReadonlySet<string>;
  /** The editor's last undo or redo (a new object for each). */
  undone: { text: string } | null;
}

function entityView(e: EntityRecord | undefined): EntityView | null {
  return e ? { key: e.key, type: e.type, text: e.text, isSuggested: e.status === 'suggested' } : null;
}

/** The parts of the editor state an announcement is made from. */
export function snapshot(ed: AnnotationEditor): EditorSnapshot {
  const list = ed.ordered;
  const selected = entityView(ed.entity(ed.selectedKey));
  const targets = list.filter((e) => e.key !== ed.relationSource);
  const target = entityView(ed.entity(ed.relationTarget));
  const rel = ed.shownRelations.find((r: RelationRecord) => r.key === ed.selectedRelationKey);
  const type = ed.mode === 'pick-type' ? ed.allowedTypes[ed.typeIndex] : undefined;
  return {
    selected: selected && {
      ...selected,
      index: list.findIndex((e) => e.key === selected.key) + 1,
      count: list.length,
    },
    pending: ed.pending ? ed.text.slice(ed.pending.start, ed.pending.end) : null,
    mode: ed.mode,
    source: entityView(ed.entity(ed.relationSource)),
    target: target && {
      ...target,
      index: targets.findIndex((e) => e.key === target.key) + 1,
      count: targets.length,
    },
    type: type
      ? { name: type.name, index: ed.typeIndex + 1, count: ed.allowedTypes.length }
      : null,
    relation: rel
      ? {
          key: rel.key,
          type: rel.type,
          from: ed.entity(rel.arg1)?.text ?? rel.arg1,
          to: ed.entity(rel.arg2)?.text ?? rel.arg2,
          isSuggested: rel.status === 'suggested',
        }
      : null,
    entityKeys: new Set(ed.visible.map((e) => e.key)),
    relationKeys: new Set(ed.shownRelations.map((r) => r.key)),
    undone: ed.undone,
  };
}

const q = (text: string): string => `“${text}”`;
const named = (e: EntityView): string => `${e.type} ${q(e.text)}`;
const arrow = (r: RelationView): string => `${r.type}: ${q(r.from)} → ${q(r.to)}`;

function relationFlow(prev: EditorSnapshot, next: EditorSnapshot): string | null {
  const target = next.target ? `${named(next.target)}, ${next.target.index} of ${next.target.count}` : '';
  if (next.mode === 'pick-target') {
    if (prev.mode === 'idle' && next.source)
      return `Relation from ${q(next.source.text)}: pick the target entity with the arrow keys, then press Enter. Target: ${target}`;
    if (prev.mode === 'pick-type') return `Pick the target entity. Target: ${target}`;
    if (prev.target?.key !== next.target?.key) return `Target: ${target}`;
    return null;
  }
  if (next.mode === 'pick-type' && next.type) {
    const choice = `${next.type.name}, ${next.type.index} of ${next.type.count}`;
    if (prev.mode !== 'pick-type' && next.source && next.target)
      return `Relation ${q(next.source.text)} → ${q(next.target.text)}: choose its type with the arrow keys, then press Enter. ${choice}`;
    if (prev.type?.name !== next.type.name) return choice;
  }
  return null;
}

/** One sentence for what changed from `prev` to `next`, or null when nothing worth saying did. */
export function describeChange(prev: EditorSnapshot, next: EditorSnapshot): string | null {
  // Undo names the step it took back, not the edit that took it back ("Deleted …" for an undone label).
  if (next.undone !== prev.undone && next.undone) return next.undone.text;
  if (next.relation && !prev.relationKeys.has(next.relation.key)) return arrow(next.relation);
  if (prev.relation && !next.relationKeys.has(prev.relation.key))
    return `Deleted relation ${arrow(prev.relation)}`;
  if (prev.selected && !next.entityKeys.has(prev.selected.key)) {
    // Its relations go with it (Ctrl+Z brings all back): say so, they vanish from elsewhere too.
    const gone = [...prev.relationKeys].filter((k) => !next.relationKeys.has(k)).length;
    const also = gone === 0 ? '' : ` and its ${gone === 1 ? 'relation' : `${gone} relations`}`;
    return prev.selected.isSuggested
      ? `Rejected the suggestion ${named(prev.selected)}${also}`
      : `Deleted ${named(prev.selected)}${also}`;
  }
  const sel = next.selected;
  if (sel && !prev.entityKeys.has(sel.key)) return `Labelled ${q(sel.text)} as ${sel.type}`;
  if (next.mode !== 'idle') return relationFlow(prev, next);
  if (prev.mode !== 'idle' && prev.selected?.key === sel?.key) return 'Relation cancelled';
  if (sel && prev.selected?.key === sel.key) {
    if (prev.selected.type !== sel.type) return `Labelled ${q(sel.text)} as ${sel.type}`;
    if (prev.selected.isSuggested && !sel.isSuggested) return `Accepted ${named(sel)}`;
    if (prev.selected.text !== sel.text) return `${sel.type}: ${q(sel.text)}`;
  }
  if (next.relation && prev.relation?.key === next.relation.key && prev.relation.isSuggested && !next.relation.isSuggested)
    return `Accepted ${arrow(next.relation)}`;
  const [was, now] = [prev.relation, next.relation];
  if (now && was?.key === now.key && (was.type !== now.type || was.from !== now.from))
    return `Changed to ${arrow(now)}`;
  if (next.relation && prev.relation?.key !== next.relation.key)
    return next.relation.isSuggested
      ? `${arrow(next.relation)} (suggestion: Enter accepts it, Delete rejects it)`
      : `${arrow(next.relation)} (press Delete to remove it)`;
  if (sel && prev.selected?.key !== sel.key)
    return `${sel.type}: ${q(sel.text)}${sel.isSuggested ? ' (suggestion)' : ''}, entity ${sel.index} of ${sel.count}`;
  if (next.pending !== null && next.pending !== prev.pending)
    return `Selected ${q(next.pending)} (press a label key)`;
  if (!sel && next.pending === null && (prev.selected || prev.pending !== null))
    return 'Nothing selected';
  return null;
}
