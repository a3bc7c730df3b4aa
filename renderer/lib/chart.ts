// Geometry of the small line charts (loss and dev F1): extents, "nice" ticks, and SVG paths.
// Pure functions so the chart component stays thin and this part is unit-tested.

export interface Point {
  x: number;
  y: number;
}

export interface Extent {
  min: number;
  max: number;
}

/** The extent of values, padded when flat; `fixed` overrides either end. */
export function extentOf(values: readonly number[], fixed: Partial<Extent> = {}): Extent {
  const finite = values.filter(Number.isFinite);
  let min = fixed.min ?? (finite.length > 0 ? Math.min(...finite) : 0);
  let max = fixed.max ?? (finite.length > 0 ? Math.max(...finite) : 1);
  if (max - min < 1e-9) {
    const pad = Math.abs(max) > 1e-9 ? Math.abs(max) * 0.1 : 1;
    if (fixed.min === undefined) min -= pad;
    if (fixed.max === undefined) max += pad;
  }
  return { min, max };
}

/**
 * About `count` round tick values covering the extent (1, 2, 2.5 or 5 × 10^k steps). With
 * `integer` (an axis of counts such as training steps) every tick is a whole number.
 */
export function niceTicks(e: Extent, count = 4, integer = false): number[] {
  const span = e.max - e.min;
  if (!(span > 0)) return [e.min];
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const multiples = integer && mag < 10 ? [1, 2, 5, 10] : [1, 2, 2.5, 5, 10];
  let step = (multiples.find((m) => m * mag >= raw) ?? 10) * mag;
  if (integer) step = Math.max(1, Math.round(step));
  const ticks: number[] = [];
  for (let v = Math.ceil(e.min / step) * step; v <= e.max + step * 1e-6; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** Maps a value in `from` onto [a, b]. */
export function scale(from: Extent, a: number, b: number): (v: number) => number {
  const span = from.max - from.min || 1;
  return (v) => a + ((v - from.min) / span) * (b - a);
}

/** An SVG path through the points (gaps at non-finite values). */
export function linePath(
  points: readonly Point[],
  sx: (v: number) => number,
  sy: (v: number) => number,
): string {
  let d = '';
  let isOpen = false;
  for (const p of points) {
    if (!Number.isFinite(p.y)) {
      isOpen = false;
      continue;
    }
    d += `${isOpen ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`;
    isOpen = true;
  }
  return d;
}

/** A tick label: integers plainly, small numbers with up to 3 significant digits. */
export function tickLabel(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Number(v.toPrecision(3)).toString();
}

/**
 * Labels for a set of ticks (niceTicks): each with as many decimals as the set needs to tell its
 * ticks apart exactly, the same for all, so a narrow range reads 1.10, 1.12, 1.14 rather than
 * "1.1" three times (tickLabel's 3 significant digits).
 */
export function tickLabels(ticks: readonly number[]): string[] {
  if (ticks.every((t) => Number.isInteger(t))) return ticks.map(String);
  const step = ticks.length > 1 ? Math.abs((ticks[1] as number) - (ticks[0] as number)) : 0;
  if (!(step > 0)) return ticks.map(tickLabel);
  for (let d = 0; d <= 12; d++)
    if (ticks.every((t) => Math.abs(Number(t.toFixed(d)) - t) <= step * 1e-6)) return ticks.map((t) => t.toFixed(d));
  return ticks.map(tickLabel);
}

/** What a series shows, in words for screen readers: "Dev F1: 1 point, latest 0.42 at step 200". */
export function seriesSummary(label: string, points: readonly Point[], xLabel: string): string {
  const last = points.at(-1);
  if (!last) return `${label}: no points yet`;
  const count = `${points.length} point${points.length === 1 ? '' : 's'}`;
  return `${label}: ${count}, latest ${tickLabel(last.y)} at ${xLabel.toLowerCase()} ${last.x}`;
}
