// Where relation-arc labels go: each at its arc's apex, moved up a row at a time while it would
// overlap a label already placed (two arcs over the same words used to print "treatseats").

/** A label centred at `x`, with its baseline at `y`, `width` wide. */
export interface ArcLabel {
  x: number;
  y: number;
  width: number;
}

/** A row of 10 px labels. */
export const LABEL_ROW = 12;

/** The label width for `text` in the arcs' 10 px semibold font (an estimate, slightly generous). */
export function labelWidth(text: string): number {
  return text.length * 6.2 + 6;
}

/**
 * Baselines for `labels` (same order) such that no two boxes overlap, nor a label and one of the
 * `obstacles` (label chips, given in the same terms: centre x, baseline y, width).
 */
export function placeLabels(labels: readonly ArcLabel[], obstacles: readonly ArcLabel[] = []): number[] {
  const order = labels.map((_, i) => i).sort((a, b) => labels[b]!.y - labels[a]!.y || labels[a]!.x - labels[b]!.x);
  const placed: ArcLabel[] = [...obstacles];
  const ys = labels.map((l) => l.y);
  for (const i of order) {
    const l = labels[i]!;
    let y = l.y;
    const hits = (p: ArcLabel): boolean => Math.abs(p.x - l.x) < (p.width + l.width) / 2 && Math.abs(p.y - y) < LABEL_ROW;
    for (let guard = 0; guard < 50 && placed.some(hits); guard++) y -= LABEL_ROW;
    ys[i] = y;
    placed.push({ ...l, y });
  }
  return ys;
}
