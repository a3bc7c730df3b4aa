// Symbolic dimension arithmetic for shape inference: a dim is a number or a product of named
// symbols with an integer coefficient, written "B*T" or "12*B". No sums; enough for reshapes.

import type { Dim } from './ir.ts';

interface Product {
  coef: number;
  syms: string[]; // sorted
}

function parse(d: Dim): Product {
  if (typeof d === 'number') return { coef: d, syms: [] };
  let coef = 1;
  const syms: string[] = [];
  for (const part of d.split('*')) {
    if (/^\d+$/.test(part)) coef *= Number(part);
    else syms.push(part);
  }
  return { coef, syms: syms.sort() };
}

function format(p: Product): Dim {
  if (p.syms.length === 0) return p.coef;
  return p.coef === 1 ? p.syms.join('*') : [String(p.coef), ...p.syms].join('*');
}

/** Product of dims, symbolic where needed. */
export function mulDims(dims: readonly Dim[]): Dim {
  const out: Product = { coef: 1, syms: [] };
  for (const d of dims) {
    const p = parse(d);
    out.coef *= p.coef;
    out.syms.push(...p.syms);
  }
  out.syms.sort();
  return format(out);
}

/** a / b when exactly divisible (symbolically); undefined otherwise. */
export function divDims(a: Dim, b: Dim): Dim | undefined {
  const pa = parse(a);
  const pb = parse(b);
  if (pb.coef === 0 || pa.coef % pb.coef !== 0) return undefined;
  const syms = [...pa.syms];
  for (const s of pb.syms) {
    const i = syms.indexOf(s);
    if (i < 0) return undefined;
    syms.splice(i, 1);
  }
  return format({ coef: pa.coef / pb.coef, syms });
}

export function sameDim(a: Dim, b: Dim): boolean {
  return format(parse(a)) === format(parse(b));
}

/** Numpy-style broadcast of two shapes; throws on a definite mismatch. */
export function broadcastShapes(a: readonly Dim[], b: readonly Dim[]): Dim[] {
  const n = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    const da = a[a.length - n + i] ?? 1;
    const db = b[b.length - n + i] ?? 1;
    if (da === 1) out.push(db);
    else if (db === 1) out.push(da);
    else if (sameDim(da, db)) out.push(da);
    else if (typeof da === 'number' && typeof db === 'number')
      throw new Error(`cannot broadcast shapes [${a.join(',')}] and [${b.join(',')}]`);
    else out.push(typeof da === 'number' ? da : db);
  }
  return out;
}
