// DOM helpers for the text pane: mapping a selection point to a text offset (segments carry
// `data-o`, label chips are skipped), and finding the entity under the pointer.

function segmentOf(node: Node | null): HTMLElement | null {
  const el = node instanceof HTMLElement ? node : (node?.parentElement ?? null);
  return el?.closest<HTMLElement>('[data-o]') ?? null;
}

/** The document offset of a selection point, or null outside the text. */
export function pointToOffset(node: Node, offset: number): number | null {
  if (node.nodeType === Node.TEXT_NODE) {
    const seg = segmentOf(node);
    if (seg === null) return null;
    const base = Number(seg.dataset['o']);
    // Inside a label chip: count as the segment start.
    return node.parentElement === seg ? base + offset : base;
  }
  const el = node as Element;
  const child = el.childNodes[offset];
  if (child !== undefined) {
    const seg =
      segmentOf(child) ??
      (child instanceof Element ? child.querySelector<HTMLElement>('[data-o]') : null);
    if (seg !== null) return Number(seg.dataset['o']);
  }
  // After the last child: the end of the last segment inside.
  const all = el.querySelectorAll<HTMLElement>('[data-o]');
  const last = all[all.length - 1];
  if (last !== undefined)
    return Number(last.dataset['o']) + (last.lastChild?.textContent?.length ?? 0);
  const seg = segmentOf(el);
  return seg === null ? null : Number(seg.dataset['o']);
}

/** Offsets of the current selection inside `root`, or null when collapsed or outside. */
export function selectionOffsets(root: HTMLElement): { start: number; end: number } | null {
  const sel = window.getSelection();
  if (sel === null || sel.rangeCount === 0 || sel.isCollapsed) return null;
  const range = sel.getRangeAt(0);
  if (!root.contains(range.startContainer) || !root.contains(range.endContainer)) return null;
  const a = pointToOffset(range.startContainer, range.startOffset);
  const b = pointToOffset(range.endContainer, range.endOffset);
  if (a === null || b === null || a === b) return null;
  return { start: Math.min(a, b), end: Math.max(a, b) };
}

/** The entity key at an element: a label chip, else the innermost entity of a segment. */
export function entityKeyAt(el: Element | null): string | null {
  const chip = el?.closest<HTMLElement>('[data-chip]');
  if (chip) return chip.dataset['chip'] ?? null;
  const keys = el
    ?.closest<HTMLElement>('[data-keys]')
    ?.dataset['keys']?.split(' ')
    .filter((k) => k !== '__pending');
  return keys?.at(-1) ?? null;
}
