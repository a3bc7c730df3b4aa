// AdamW's moments in host memory, laid out as a step graph from buildAdamW reads them: per
// parameter, or in packed groups (one flat buffer per group and moment, with a view per
// parameter so snapshots and checkpoints stay keyed by parameter name). A step writes the new
// moments into these same buffers (see Trainer.trainStep).

import type { HostTensor } from '../onnx/ir.ts';
import { nextName, packedLength, packedStateName, stateName, type PackedGroup } from './adamw.ts';

interface Flat {
  group: PackedGroup['name'];
  m: HostTensor;
  v: HostTensor;
}

function zeros(dims: readonly number[], n: number): HostTensor {
  return { dtype: 'float32', dims: [...dims], data: new Float32Array(n) };
}

export class AdamState {
  readonly #m = new Map<string, HostTensor>();
  readonly #v = new Map<string, HostTensor>();
  readonly #flat: Flat[] = [];
  readonly #packed = new Set<string>();

  /** Zero moments for `params` (name → shape); those in `groups` share their group's buffers. */
  constructor(params: ReadonlyMap<string, readonly number[]>, groups: readonly PackedGroup[] = []) {
    const size = (p: string): number => (params.get(p) ?? []).reduce((a, d) => a * d, 1);
    for (const g of groups) {
      const total = packedLength(g.params.reduce((a, p) => a + size(p), 0));
      const flat = { group: g.name, m: zeros([total], total), v: zeros([total], total) };
      this.#flat.push(flat);
      let offset = 0;
      for (const p of g.params) {
        if (!params.has(p)) throw new Error(`AdamW group "${g.name}" names an unknown parameter "${p}"`);
        const n = size(p);
        const dims = [...(params.get(p) ?? [])];
        const view = (t: HostTensor): HostTensor => ({ dtype: 'float32', dims, data: (t.data as Float32Array).subarray(offset, offset + n) });
        this.#m.set(p, view(flat.m));
        this.#v.set(p, view(flat.v));
        this.#packed.add(p);
        offset += n;
      }
    }
    for (const [p, dims] of params) {
      if (this.#packed.has(p)) continue;
      this.#m.set(p, zeros(dims, size(p)));
      this.#v.set(p, zeros(dims, size(p)));
    }
  }

  /** Whether `p`'s moments live in a packed group (its `.next` output is then flat). */
  isPacked(p: string): boolean {
    return this.#packed.has(p);
  }

  /** The step graph's moment inputs. */
  feeds(): Record<string, HostTensor> {
    const out: Record<string, HostTensor> = {};
    for (const f of this.#flat) {
      out[packedStateName(f.group, 'adam_m')] = f.m;
      out[packedStateName(f.group, 'adam_v')] = f.v;
    }
    for (const [p, m] of this.#m) {
      if (this.#packed.has(p)) continue;
      out[stateName(p, 'adam_m')] = m;
      out[stateName(p, 'adam_v')] = this.#v.get(p) as HostTensor;
    }
    return out;
  }

  /** The step graph's moment outputs, bound to the same buffers (updated in place). */
  outputs(): Record<string, HostTensor> {
    return Object.fromEntries(Object.entries(this.feeds()).map(([k, t]) => [nextName(k), t]));
  }

  /** Copies of the moments, by parameter. */
  snapshot(): { m: Map<string, HostTensor>; v: Map<string, HostTensor> } {
    const copy = (src: Map<string, HostTensor>): Map<string, HostTensor> =>
      new Map([...src].map(([k, t]) => [k, { dtype: t.dtype, dims: [...t.dims], data: (t.data as Float32Array).slice() }]));
    return { m: copy(this.#m), v: copy(this.#v) };
  }

  /** Copies saved moments into these buffers; every parameter must be there, with its size. */
  restore(m: ReadonlyMap<string, HostTensor>, v: ReadonlyMap<string, HostTensor>): void {
    for (const [p, own] of this.#m) {
      for (const [saved, target, kind] of [[m.get(p), own, 'first'], [v.get(p), this.#v.get(p), 'second']] as const) {
        if (!saved || !target) throw new Error(`checkpoint lacks the AdamW ${kind} moment of "${p}"`);
        if (saved.data.length !== target.data.length) throw new Error(`checkpoint's AdamW ${kind} moment of "${p}" has ${saved.data.length} values, the model needs ${target.data.length}`);
      }
    }
    for (const [p, own] of this.#m) {
      (own.data as Float32Array).set(m.get(p)?.data as Float32Array);
      (this.#v.get(p)?.data as Float32Array).set(v.get(p)?.data as Float32Array);
    }
  }
}
