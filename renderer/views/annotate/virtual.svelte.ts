// Variable-height windowing for the text blocks: estimated heights until a block is measured,
// prefix sums for offsets, and the range of blocks to render around the viewport.

export class VirtualList {
  scrollTop = $state(0);
  viewportHeight = $state(800);
  /** Bumped when heights change (prefix sums are plain arrays). */
  #version = $state(0);
  #heights: Float64Array;
  #prefix: Float64Array;
  #isMeasured: Uint8Array;
  #isDirty = false;
  #shift = 0;
  readonly overscan: number;
  /** Called with the height change of blocks above the viewport, to keep the text still. */
  onShift: (delta: number) => void = () => {};

  total = $derived.by(() => {
    void this.#version;
    return this.#prefix[this.#heights.length] ?? 0;
  });

  /** First and last block index to render (inclusive). */
  range = $derived.by(() => {
    void this.#version;
    const top = Math.max(0, this.scrollTop - this.overscan);
    const bottom = this.scrollTop + this.viewportHeight + this.overscan;
    return { first: this.indexAt(top), last: this.indexAt(bottom) };
  });

  constructor(count: number, estimate: (i: number) => number, overscan = 800) {
    this.#heights = Float64Array.from({ length: count }, (_, i) => estimate(i));
    this.#prefix = new Float64Array(count + 1);
    this.#isMeasured = new Uint8Array(count);
    this.overscan = overscan;
    this.#rebuild();
  }

  /** Re-estimates blocks not yet measured (after the width changed, all of them). */
  reestimate(estimate: (i: number) => number, isWidthChange: boolean): void {
    for (let i = 0; i < this.#heights.length; i++) {
      if (isWidthChange) this.#isMeasured[i] = 0;
      if (this.#isMeasured[i] === 0) this.#heights[i] = estimate(i);
    }
    this.#rebuild();
    this.#version++;
  }

  /** Records a rendered block's height; prefix sums are rebuilt once per microtask. */
  measure(i: number, height: number): void {
    if (i >= this.#heights.length || height <= 0) return;
    this.#isMeasured[i] = 1;
    const delta = height - this.#heights[i]!;
    if (Math.abs(delta) < 0.5) return;
    if (this.#prefix[i + 1]! <= this.scrollTop) this.#shift += delta;
    this.#heights[i] = height;
    if (this.#isDirty) return;
    this.#isDirty = true;
    queueMicrotask(() => {
      this.#isDirty = false;
      this.#rebuild();
      this.#version++;
      if (this.#shift !== 0) {
        const shift = this.#shift;
        this.#shift = 0;
        this.onShift(shift);
      }
    });
  }

  offsetOf(i: number): number {
    void this.#version;
    return this.#prefix[Math.max(0, Math.min(i, this.#heights.length))] ?? 0;
  }

  /** The block at pixel offset `y`. */
  indexAt(y: number): number {
    const n = this.#heights.length;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#prefix[mid]! <= y) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  #rebuild(): void {
    let acc = 0;
    for (let i = 0; i < this.#heights.length; i++) {
      this.#prefix[i] = acc;
      acc += this.#heights[i]!;
    }
    this.#prefix[this.#heights.length] = acc;
  }
}
