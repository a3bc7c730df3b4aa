// State of the annotation editor for one document: entities and relations, selection, span
// snapping, the keyboard relation flow, undo/redo and autosave. Every change is an edit batch
// applied locally at once, recorded with its inverse and saved in the background in order.
import type {
  AnnotationEdit,
  DocumentDetail,
  DocumentSummary,
  EntityRecord,
  LabelSchema,
  RelationRecord,
} from '../../../engine/api/contract.ts';
import * as Edits from '../../lib/annotate/edits.ts';
import { History } from '../../lib/annotate/history.ts';
import {
  type Block,
  PENDING_KEY,
  type Segment,
  buildBlocks,
  buildMarks,
  marksByBlock,
  segmentBlock,
} from '../../lib/annotate/layout.ts';
import { allowedRelationTypes, noRelationHint, relabelConflict } from '../../lib/annotate/schema.ts';

export { PENDING_KEY };
import { type Span, TokenIndex } from '../../lib/annotate/tokens.ts';
import { codePointCount } from '../../lib/format.ts';
import { Autosave, type AutosaveOptions } from './autosave.svelte.ts';
import { type KeyInput, handleEditorKey } from './keymap.ts';

export type EditorMode = 'idle' | 'pick-target' | 'pick-type';

export interface EditorDeps extends Pick<AutosaveOptions, 'debounceMs' | 'retryMs'> {
  /** Saves edits made on `baseRevision` of the document (refused with 'conflict' if it has changed since). */
  save(edits: AnnotationEdit[], baseRevision: number): Promise<DocumentSummary>;
  reload(): Promise<DocumentDetail>;
  /** Undo steps to continue (the document is unchanged since they were made). */
  history?: History;
}

/** Keys the editor keeps for itself; entity shortcuts may not use them. */
export const RESERVED_KEYS = new Set(['r']);

/** A human edit of a model suggestion accepts it. */
const reviewed = (s: EntityRecord['status']): EntityRecord['status'] => (s === 'suggested' ? 'accepted' : s);

export class AnnotationEditor {
  readonly documentId: number;
  readonly text: string;
  /** Characters as the Documents list counts them (Unicode code points: an emoji is one, not two). */
  readonly characters = $derived.by(() => codePointCount(this.text));
  readonly tokens: TokenIndex;
  readonly blocks: Block[];

  schema = $state.raw<LabelSchema>({ entityTypes: [], relationTypes: [] });
  summary = $state.raw<DocumentSummary>();
  entities = $state.raw<EntityRecord[]>([]);
  relations = $state.raw<RelationRecord[]>([]);
  selectedKey = $state<string | null>(null);
  selectedRelationKey = $state<string | null>(null);
  pending = $state.raw<Span | null>(null);
  mode = $state<EditorMode>('idle');
  relationSource = $state<string | null>(null);
  relationTarget = $state<string | null>(null);
  typeIndex = $state(0);
  hint = $state<string | null>(null);
  canUndo = $state(false);
  canRedo = $state(false);

  /** Entities shown (rejected suggestions stay hidden but keep their keys). */
  visible = $derived(this.entities.filter((e) => e.status !== 'rejected'));
  /** Visible entities in reading order. */
  ordered = $derived(
    [...this.visible].sort(
      (a, b) =>
        (a.spans[0]?.start ?? 0) - (b.spans[0]?.start ?? 0) ||
        (b.spans.at(-1)?.end ?? 0) - (a.spans.at(-1)?.end ?? 0),
    ),
  );
  byKey = $derived(new Map(this.entities.map((e) => [e.key, e])));
  shownRelations = $derived(
    this.relations.filter((r) => r.status !== 'rejected' && r.byConcept !== true),
  );
  marks = $derived(buildMarks(this.visible, this.pending));
  #marksPerBlock = $derived.by(() => marksByBlock(this.blocks, this.marks));
  #segmentCache = $derived.by(() => {
    void this.#marksPerBlock; // a fresh cache whenever the marks change
    return new Map<number, Segment[]>();
  });
  /** Relation types allowed between the chosen source and target. */
  allowedTypes = $derived(
    allowedRelationTypes(
      this.schema,
      this.entity(this.relationSource)?.type,
      this.entity(this.relationTarget)?.type,
    ),
  );

  /** The undo steps (kept when the editor closes: see histories.ts). */
  readonly history: History;
  /** The last undo, redo or review of all suggestions, for the live region (a new object each time, so repeats are seen). */
  undone = $state.raw<{ text: string } | null>(null);
  #deps: EditorDeps;
  #autosave: Autosave;
  #entityNo: number;
  #relationNo: number;
  /** Where keyboard-only span creation starts when nothing is selected. */
  caret = 0;

  constructor(detail: DocumentDetail, schema: LabelSchema, deps: EditorDeps) {
    this.documentId = detail.summary.id;
    this.text = detail.text;
    this.tokens = new TokenIndex(detail.text);
    this.blocks = buildBlocks(detail.text);
    this.schema = schema;
    this.summary = detail.summary;
    this.entities = detail.entities;
    this.relations = detail.relations;
    this.#deps = deps;
    this.history = deps.history ?? new History();
    this.canUndo = this.history.canUndo;
    this.canRedo = this.history.canRedo;
    this.#autosave = new Autosave({
      save: async (edits) => {
        this.summary = await deps.save(edits, this.summary!.revision);
      },
      onFailure: () => this.#resync(),
      debounceMs: deps.debounceMs, retryMs: deps.retryMs,
    });
    this.#entityNo = 0;
    this.#relationNo = 0;
    this.#countKeys();
  }

  /** New keys continue after the highest T/R numbers in the document. */
  #countKeys(): void {
    this.#entityNo = Edits.maxKeyNumber(this.entities.map((e) => e.key), 'T');
    this.#relationNo = Edits.maxKeyNumber(this.relations.map((r) => r.key), 'R');
  }

  /** Segments of block `i` (computed when first shown, until the annotations change). */
  segments(i: number): Segment[] {
    const cache = this.#segmentCache;
    let segs = cache.get(i);
    if (segs === undefined) {
      segs = segmentBlock(this.blocks[i]!, this.#marksPerBlock[i] ?? []);
      cache.set(i, segs);
    }
    return segs;
  }

  entity(key: string | null): EntityRecord | undefined {
    return key === null ? undefined : this.byKey.get(key);
  }

  /** Selects the text [start, end) snapped to whole tokens (a pending span to label). */
  selectRange(start: number, end: number): void {
    this.#resetMode();
    this.selectedKey = null;
    this.selectedRelationKey = null;
    this.pending = this.tokens.snap(start, end);
    if (this.pending) this.caret = this.pending.end;
  }

  select(key: string | null): void {
    this.#resetMode();
    this.pending = null;
    this.selectedRelationKey = null;
    this.selectedKey = key;
    const e = this.entity(key);
    if (e) this.caret = e.spans.at(-1)?.end ?? this.caret;
  }

  selectRelation(key: string | null): void {
    this.#resetMode();
    this.selectedRelationKey = key;
  }

  clear(): void {
    this.#resetMode();
    this.pending = null;
    this.selectedKey = null;
    this.selectedRelationKey = null;
  }

  /** Moves the selection to the next/previous entity in reading order. */
  selectNext(dir: -1 | 1): void {
    const list = this.ordered;
    if (list.length === 0) return;
    const at = this.selectedKey === null ? -1 : list.findIndex((e) => e.key === this.selectedKey);
    let next: number;
    if (at >= 0) next = Math.min(list.length - 1, Math.max(0, at + dir));
    else {
      const from = this.pending?.start ?? this.caret;
      next =
        dir > 0
          ? list.findIndex((e) => (e.spans[0]?.start ?? 0) >= from)
          : list.findLastIndex((e) => (e.spans[0]?.start ?? 0) < from);
      if (next < 0) next = dir > 0 ? list.length - 1 : 0;
    }
    this.select(list[next]!.key);
  }

  /** Applies an entity type: to the pending span (new entity) or to the selected entity. */
  label(type: string): void {
    const span = this.pending;
    // The same span labelled the same type again would be a duplicate (twice in every export).
    const same = span && this.visible.find((e) => e.type === type && e.spans.length === 1 && e.spans[0]!.start === span.start && e.spans[0]!.end === span.end);
    if (same) {
      this.select(same.key);
      if (same.status === 'suggested') return this.acceptSelected(); // the model's suggestion, confirmed
      this.hint = `This text is already labelled ${type}; it is selected now.`;
      return;
    }
    if (span) {
      const key = `T${++this.#entityNo}`;
      this.#commit(`Add ${type}`, [
        {
          op: 'add-entity',
          entity: {
            key,
            type,
            spans: [span],
            text: this.text.slice(span.start, span.end),
            origin: 'annotator',
            status: 'final',
          },
        },
      ]);
      this.pending = null;
      this.selectedKey = key;
      return;
    }
    const e = this.entity(this.selectedKey);
    if (!e || (e.type === type && e.status !== 'suggested')) return;
    this.hint = relabelConflict(this.schema, (k) => this.entity(k)?.type, this.relations, e.key, type);
    if (this.hint === null)
      this.#commit(`Change to ${type}`, [{ op: 'update-entity', key: e.key, type, status: reviewed(e.status) }]);
  }

  /** Deletes the selected relation or entity; a model suggestion is rejected instead. */
  deleteSelected(): void {
    const rel = this.relations.find((r) => r.key === this.selectedRelationKey);
    if (rel) {
      this.#commit(
        'Delete relation',
        rel.status === 'suggested'
          ? [{ op: 'update-relation', key: rel.key, status: 'rejected' }]
          : [{ op: 'delete-relation', key: rel.key }],
      );
      this.selectedRelationKey = null;
      return;
    }
    const e = this.entity(this.selectedKey);
    if (!e) return;
    const edits = e.status === 'suggested' ? Edits.rejectEntityEdits(this, e.key) : Edits.deleteEntityEdits(this, e.key);
    this.#commit(e.status === 'suggested' ? 'Reject suggestion' : 'Delete entity', edits);
    this.selectedKey = null;
  }

  /** Accepts the selected suggested relation (with its arguments), else the selected suggested entity. */
  acceptSelected(): void {
    const e = this.entity(this.selectedKey);
    const rel = this.selectedRelationKey === null ? [] : Edits.acceptRelationEdits(this, this.selectedRelationKey);
    if (rel.length > 0) this.#commit('Accept relation', rel);
    else if (e?.status === 'suggested')
      this.#commit('Accept suggestion', [{ op: 'update-entity', key: e.key, status: 'accepted' }]);
  }

  /** Gives the highlighted relation another type, or reverses it (a hint where its rule forbids that). */
  changeRelation(change: { type: string } | 'reverse'): void {
    const { edits, hint } = Edits.relationChange(this.schema, this, this.selectedRelationKey, change);
    this.hint = hint;
    this.#commit(change === 'reverse' ? 'Reverse relation' : 'Change relation type', edits);
  }

  /** Accepts or rejects every pending model suggestion in one undoable step, and says how many. */
  reviewAll(status: 'accepted' | 'rejected'): void {
    const edits = Edits.reviewAllEdits(this, status);
    this.#commit(status === 'accepted' ? 'Accept all suggestions' : 'Reject all suggestions', edits);
    if (edits.length > 0) this.undone = { text: `${status === 'accepted' ? 'Accepted' : 'Rejected'} ${edits.length} suggestion${edits.length === 1 ? '' : 's'}` };
  }

  /** Moves one edge of the pending span or of the selected entity by one token. */
  adjust(edge: 'start' | 'end', dir: -1 | 1): void {
    if (this.pending) {
      this.pending = this.tokens.step(this.pending, edge, dir);
      return;
    }
    const e = this.entity(this.selectedKey);
    if (!e) {
      const token = this.tokens.tokenAt(this.caret);
      if (token && edge === 'end' && dir > 0) this.pending = token;
      return;
    }
    const first = e.spans[0]!;
    const last = e.spans.at(-1)!;
    const whole = { start: first.start, end: last.end };
    const next = this.tokens.step(whole, edge, dir);
    if (next.start === whole.start && next.end === whole.end) return;
    const spans =
      e.spans.length === 1
        ? [next]
        : edge === 'start'
          ? [{ start: next.start, end: first.end }, ...e.spans.slice(1)]
          : [...e.spans.slice(0, -1), { start: last.start, end: next.end }];
    this.#commit('Adjust span', [
      { op: 'update-entity', key: e.key, spans, status: reviewed(e.status) },
    ]);
  }

  /** Starts a relation from the selected entity: the target is picked next. */
  startRelation(): void {
    const source = this.entity(this.selectedKey);
    if (!source) {
      this.hint = 'Select an entity first (click it, or use ← →), then press R.';
      return;
    }
    const list = this.ordered.filter((e) => e.key !== source.key);
    if (list.length === 0) {
      this.hint = 'A relation needs a second entity; annotate one first.';
      return;
    }
    const start = source.spans[0]?.start ?? 0;
    const after = list.find((e) => (e.spans[0]?.start ?? 0) >= start);
    this.mode = 'pick-target';
    this.relationSource = source.key;
    this.relationTarget = (after ?? list.at(-1)!).key;
    this.hint = null;
  }

  moveTarget(dir: -1 | 1): void {
    const list = this.ordered.filter((e) => e.key !== this.relationSource);
    const at = list.findIndex((e) => e.key === this.relationTarget);
    const next = list[Math.min(list.length - 1, Math.max(0, at + dir))];
    if (next) this.relationTarget = next.key;
  }

  /** Confirms the target; the relation type is chosen next. */
  confirmTarget(): void {
    if (this.mode !== 'pick-target' || this.relationTarget === null) return;
    this.mode = 'pick-type';
    this.typeIndex = 0;
    if (this.allowedTypes.length === 0) {
      const s = this.entity(this.relationSource)?.type ?? '?';
      const t = this.entity(this.relationTarget)?.type ?? '?';
      this.hint = noRelationHint(this.schema, s, t);
      this.mode = 'pick-target';
    }
  }

  /**
   * An entity clicked: while a relation's target is being picked (after R or Relate…), it becomes
   * the target and the type is chosen next, as the arrow keys and Enter do; otherwise it is selected.
   */
  clickEntity(key: string): void {
    const source = this.relationSource;
    if (this.mode === 'pick-target' && source !== null && key !== source) this.dragRelation(source, key);
    else this.select(key);
  }

  /** A relation dragged from one entity to another: the type is chosen next. */
  dragRelation(source: string, target: string): void {
    if (source === target || !this.entity(source) || !this.entity(target)) return;
    this.select(source);
    this.relationSource = source;
    this.relationTarget = target;
    this.mode = 'pick-target';
    this.confirmTarget();
  }

  moveType(dir: -1 | 1): void {
    const n = this.allowedTypes.length;
    if (n > 0) this.typeIndex = (this.typeIndex + dir + n) % n;
  }

  /** Creates the relation with the chosen (or highlighted) type. */
  chooseType(index = this.typeIndex): void {
    const type = this.allowedTypes[index];
    if (this.mode !== 'pick-type' || !type || this.relationSource === null || this.relationTarget === null)
      return;
    const key = `R${++this.#relationNo}`;
    this.#commit(`Add ${type.name}`, [
      ...Edits.acceptArgumentEdits(this, [this.relationSource, this.relationTarget]),
      {
        op: 'add-relation',
        relation: { key, type: type.name, arg1: this.relationSource, arg2: this.relationTarget, origin: 'annotator', status: 'final' },
      },
    ]);
    const source = this.relationSource;
    this.#resetMode();
    this.selectedKey = source;
    this.selectedRelationKey = key;
  }

  /** Escape: leaves the relation flow, else clears the selection. */
  cancel(): void {
    if (this.mode === 'pick-type') this.mode = 'pick-target';
    else if (this.mode === 'pick-target') this.#resetMode();
    else this.clear();
    this.hint = null;
  }

  undo(): void {
    const step = this.history.undo();
    if (step) this.#applyAndSave(step.inverse, `Undone: ${step.label}`);
  }

  redo(): void {
    const step = this.history.redo();
    if (step) this.#applyAndSave(step.edits, `Redone: ${step.label}`);
  }

  /** The keyboard map (keymap.ts); returns true when the key was handled. */
  handleKey(k: KeyInput): boolean {
    this.hint = null;
    return handleEditorKey(this, k);
  }

  /** Saves queued edits now (before leaving the document). */
  flush(): Promise<void> {
    return this.#autosave.flush();
  }

  get saveState(): Autosave['state'] {
    return this.#autosave.state;
  }

  get saveError(): string | null {
    return this.#autosave.error;
  }

  /** True while there are changes not yet saved. */
  get isDirty(): boolean {
    return this.#autosave.isDirty;
  }

  #resetMode(): void {
    this.mode = 'idle';
    this.relationSource = null;
    this.relationTarget = null;
    this.typeIndex = 0;
  }

  #commit(label: string, edits: AnnotationEdit[]): void {
    if (edits.length === 0) return;
    const inverse = Edits.invertEdits(this, edits);
    this.history.push({ label, edits, inverse });
    this.#applyAndSave(edits);
  }

  /** `said`: what an undo or redo took back or did again (see `undone`). */
  #applyAndSave(edits: AnnotationEdit[], said?: string): void {
    if (said !== undefined) this.undone = { text: said };
    const next = Edits.applyEdits(this, edits);
    this.entities = [...next.entities];
    this.relations = [...next.relations];
    if (this.selectedKey !== null && !this.byKey.has(this.selectedKey)) this.selectedKey = null;
    if (!this.relations.some((r) => r.key === this.selectedRelationKey)) this.selectedRelationKey = null;
    this.canUndo = this.history.canUndo;
    this.canRedo = this.history.canRedo;
    this.#autosave.push(edits);
  }

  /** Shows the document as saved (after a failed save); false when it could not be read either. */
  async #resync(): Promise<boolean> {
    try {
      const fresh = await this.#deps.reload();
      this.entities = fresh.entities;
      this.relations = fresh.relations;
      this.summary = fresh.summary;
      this.#countKeys();
      return true;
    } catch {
      return false;
    } finally {
      this.history.clear();
      this.canUndo = this.canRedo = false;
      this.clear();
    }
  }
}
