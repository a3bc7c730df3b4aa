// Binary search over sorted numbers (typed arrays of hashes, offsets).

/** How many of the ascending `values` are below `x` (the index of the first one not below it). */
export function lowerBound(values: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
