// HTML for one block of annotated text. Blocks are rendered as one string each (set through
// {@html}) rather than one Svelte element per segment: far fewer nodes and effects to create
// while scrolling. Everything from the document or the schema is escaped; colours must be hex.
import { PENDING_KEY, type Mark, type Segment } from './layout.ts';

export interface RenderState {
  selected: string | null;
  source: string | null;
  target: string | null;
  colors: ReadonlyMap<string, string>;
  /** Entities that are a shown relation's argument: their lines get room above for the arcs. */
  related?: ReadonlySet<string>;
  /** Read-only views: each entity's type is also spelt out, hidden, for screen readers. */
  isSpoken?: boolean;
}

const LANE_GAP = 3;
const CHIP_STEP = 14;
/** The line-height (px) of a segment with one lane of chips; each more lane adds 2 × CHIP_STEP. */
const LINE_BASE = 46;
/** Room (px) kept above the chips of a relation argument, for its arc and label: see ARC_LIFT. */
export const ARC_ROOM = 34;
/** The most an arc rises above its chips; its label sits a little below the apex. */
export const ARC_LIFT = { min: 12, max: 30 };
const HEX = /^#[0-9a-fA-F]{6}$/;
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function colorOf(colors: ReadonlyMap<string, string>, type: string): string {
  const c = colors.get(type);
  return c !== undefined && HEX.test(c) ? c : '#888888';
}

/** WCAG relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/**
 * Black or white, whichever reads better on `hex` (a label chip's type colour): the better of
 * the two always has a contrast of at least 4.58:1, so any colour a user picks passes WCAG AA.
 */
export function chipTextColor(hex: string): '#000000' | '#ffffff' {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/**
 * How far (in characters of the text) a chip may reach past the start of its entity: a chip's
 * letters are narrower than the text's (10 px bold against the body font), and its padding is
 * about one letter of text; one more keeps a gap when the text's letters are narrow.
 */
export function chipReach(type: string): number {
  return type.length + 2;
}

/**
 * The row of each label chip in a block (row r sits r × CHIP_STEP above the text): at least its
 * entity's lane, and above any earlier chip it would overlap, so two short adjacent entities'
 * labels stack instead of covering each other ("SpecificDi SpecificDisease"). Chips whose
 * entities fall on different visual lines may be stacked needlessly; that costs only height.
 */
export function chipRows(segments: readonly Segment[]): Map<Mark, number> {
  const rows = new Map<Mark, number>();
  /** Per row, the offset where its last chip ends. */
  const ends: number[] = [];
  for (const seg of segments)
    for (const h of seg.heads) {
      if (h.key === PENDING_KEY) continue;
      let row = h.lane;
      while ((ends[row] ?? -Infinity) > h.start) row++;
      rows.set(h, row);
      ends[row] = h.start + chipReach(h.type);
    }
  return rows;
}

/**
 * The block's HTML: segments carry data-o (their offset); label chips are aria-hidden (the
 * editor announces types itself; `isSpoken` spells them out as hidden text in read-only views).
 */
export function renderBlock(text: string, segments: readonly Segment[], st: RenderState): string {
  const rows = chipRows(segments);
  let html = '';
  for (const seg of segments) {
    const body = escapeHtml(text.slice(seg.start, seg.end));
    if (seg.marks.length === 0) {
      html += `<span data-o="${seg.start}">${body}</span>`;
      continue;
    }
    const keys = seg.marks.map((m) => m.key);
    const cls = ['seg'];
    if (st.selected !== null && keys.includes(st.selected)) cls.push('selected');
    if (st.source !== null && keys.includes(st.source)) cls.push('source');
    if (st.target !== null && keys.includes(st.target)) cls.push('target');
    if (seg.marks.every((m) => m.isSuggestion)) cls.push('suggested');
    const shadows = seg.marks.map(
      (m) =>
        `0 ${2 + m.lane * LANE_GAP}px 0 ${m.key === PENDING_KEY ? 'var(--accent)' : colorOf(st.colors, m.type)}`,
    );
    const inner = seg.marks.at(-1)!;
    const bg =
      inner.key === PENDING_KEY
        ? 'var(--accent-soft)'
        : `color-mix(in srgb, ${colorOf(st.colors, inner.type)} 16%, transparent)`;
    let chips = '';
    // A line holding label chips is made tall enough for its stack of them: an inline box's
    // line-height sets the line's height (half of the extra above the text, where the chips
    // are), while the chips, placed from the segment's content box, stay where they are.
    const heads = seg.heads.filter((h) => h.key !== PENDING_KEY);
    // A relation argument's line also gets ARC_ROOM above its chips, so arcs stay out of the
    // line above (half of the extra height lands above the text).
    const arcs = st.related !== undefined && heads.some((h) => st.related!.has(h.key));
    const top = Math.max(...heads.map((h) => rows.get(h) ?? h.lane));
    const lineHeight = heads.length > 0 ? LINE_BASE + 2 * CHIP_STEP * top + (arcs ? 2 * ARC_ROOM : 0) : 0;
    let spoken = '';
    for (const h of seg.heads) {
      if (h.key === PENDING_KEY) continue;
      if (st.isSpoken) spoken += `<span class="visually-hidden">(${escapeHtml(h.type)}) </span>`;
      const color = colorOf(st.colors, h.type);
      chips +=
        `<span class="chip" data-chip="${escapeHtml(h.key)}" style="background:${color};color:${chipTextColor(color)};bottom:calc(100% + ${(rows.get(h) ?? h.lane) * CHIP_STEP}px)" ` +
        `aria-hidden="true" title="Drag to another entity to relate them">${escapeHtml(h.type)}</span>`;
    }
    html +=
      `<span class="${cls.join(' ')}" data-o="${seg.start}" data-keys="${escapeHtml(keys.join(' '))}" ` +
      `style="box-shadow:${shadows.join(',')};background-color:${bg}${lineHeight > 0 ? `;line-height:${lineHeight}px` : ''}">${chips}${spoken}${body}</span>`;
  }
  return html;
}
