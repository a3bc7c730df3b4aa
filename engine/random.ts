// Seeded, serialisable pseudo-random numbers (mulberry32: one 32-bit state word) for data order,
// initialisation, masking and test data, and the seed mixing used to derive per-epoch and
// per-segment seeds. The engine's one PRNG. Not cryptographic.

/** A random source whose whole state is one number, so a checkpoint can store it. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Current state; `createRng(0, state)` continues the same sequence. */
  state(): number;
}

/** mulberry32 seeded with `seed` (or resumed from `state`). */
export function createRng(seed: number, state?: number): Rng {
  let a = state ?? seed >>> 0;
  return {
    next(): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    state: () => a,
  };
}

/** A 31-bit seed derived from a base seed and a sequence of integers (epoch, step…). */
export function mixSeed(seed: number, ...parts: number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x85ebca6b) >>> 0;
    h = (h ^ (h >>> 13)) >>> 0;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h & 0x7fffffff;
}

/** Fisher–Yates shuffle in place. */
export function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
  return items;
}

/** A bare `() => number` uniform source in [0, 1) (mulberry32 seeded with `seed`). */
export function rng(seed: number): () => number {
  const r = createRng(seed);
  return () => r.next();
}
