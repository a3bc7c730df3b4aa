// Numeric-vs-analytic gradient checker (in the spirit of ORT's GradientChecker): builds
// loss = Σ(f(inputs)·R) for a fixed random R, differentiates it with backward(), and compares
// against central differences computed by re-running the same graph. Used by tests only.

import { GraphBuilder } from '../onnx/builder.ts';
import type { DType, Dim, HostTensor } from '../onnx/ir.ts';
import { numel } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { Session } from '../runtime/session.ts';
import { backward } from './backward.ts';
import { rng } from '../random.ts';

export { rng };

export interface CheckInput {
  shape: number[];
  /** Values; random in [-1, 1) (seeded) when omitted. */
  data?: ArrayLike<number>;
  dtype?: DType; // float inputs take the check dtype; int64 for indices
  /** Differentiate with respect to this input (default true for float inputs). */
  wrt?: boolean;
  /** Declared shape in the graph (symbolic dims allowed); defaults to `shape`. */
  declared?: Dim[];
}

export interface GradCheckOptions {
  inputs: Record<string, CheckInput>;
  build: (b: GraphBuilder, x: Record<string, string>) => string;
  dtype?: 'float32' | 'float64';
  eps?: number;
  /** Max entries probed per input (randomly chosen, seeded). */
  maxProbes?: number;
  threads?: number;
  seed?: number;
}

export interface GradCheckResult {
  maxError: number; // max |analytic − numeric| / max(1, |numeric|)
  worst: string;
  probes: number;
}

function makeTensor(dtype: DType, shape: number[], values: ArrayLike<number>): HostTensor {
  const n = numel(shape);
  if (dtype === 'int64') return { dtype, dims: shape, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(values[i] ?? 0)) };
  const data = dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = values[i] ?? 0;
  return { dtype, dims: shape, data };
}

/** Compare analytic gradients of `build` against central differences. */
export async function gradCheck(opts: GradCheckOptions): Promise<GradCheckResult> {
  const dtype = opts.dtype ?? 'float64';
  const eps = opts.eps ?? (dtype === 'float64' ? 1e-6 : 1e-2);
  const rand = rng(opts.seed ?? 7);
  const b = new GraphBuilder('gradcheck');
  const names: Record<string, string> = {};
  const feeds: Record<string, HostTensor> = {};
  const wrt: string[] = [];
  for (const [name, spec] of Object.entries(opts.inputs)) {
    const dt = spec.dtype ?? dtype;
    names[name] = b.input(name, dt, spec.declared ?? spec.shape);
    const values = spec.data ?? Array.from({ length: numel(spec.shape) }, () => rand() * 2 - 1);
    feeds[name] = makeTensor(dt, spec.shape, values);
    if (dt.startsWith('float') && spec.wrt !== false) wrt.push(name);
  }
  const y = opts.build(b, names);
  const yShape = b.shape(y);
  const concrete = (b.info(y).shape.every((d) => typeof d === 'number') ? yShape : undefined) as number[] | undefined;
  // R is an input so its shape can follow a symbolic output.
  const rName = b.input('__r', b.dtype(y), yShape);
  const loss = b.ReduceSum(b.Mul(y, rName), undefined, false);
  b.output(loss, 'loss');
  const { grads } = backward(b, 'loss', wrt);
  for (const p of wrt) b.output(grads.get(p) as string, `${p}.grad`);
  const bytes = serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 'gradcheck', metadata: {} });
  const session = await Session.create(bytes, { threads: opts.threads ?? 2 });
  // R must match y's runtime shape: learn it from a tiny shape-only graph when symbolic.
  let rShape = concrete;
  if (!rShape) {
    const tmp = new GraphBuilder('shape');
    for (const [name, spec] of Object.entries(opts.inputs)) tmp.input(name, spec.dtype ?? dtype, spec.declared ?? spec.shape);
    const yy = opts.build(tmp, names);
    tmp.output(tmp.Shape(yy), 'shape');
    const sbytes = serializeModel({ graph: tmp.build(), opsetVersion: tmp.opset, producerName: 'gradcheck', metadata: {} });
    const ss = await Session.create(sbytes);
    const out = await ss.run(feeds);
    rShape = Array.from(out['shape']?.data as BigInt64Array, Number);
  }
  feeds['__r'] = makeTensor(b.dtype(y), rShape, Array.from({ length: numel(rShape) }, () => rand() * 2 - 1));
  const analytic = await session.run(feeds);
  let maxError = 0;
  let worst = '';
  let probes = 0;
  for (const p of wrt) {
    const g = analytic[`${p}.grad`]?.data as Float64Array | Float32Array;
    const x = feeds[p]?.data as Float64Array | Float32Array;
    const idx = Array.from({ length: x.length }, (_, i) => i);
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [idx[i], idx[j]] = [idx[j] as number, idx[i] as number];
    }
    for (const i of idx.slice(0, opts.maxProbes ?? 24)) {
      const orig = x[i] as number;
      x[i] = orig + eps;
      const lp = Number((await session.run(feeds, ['loss']))['loss']?.data[0]);
      x[i] = orig - eps;
      const lm = Number((await session.run(feeds, ['loss']))['loss']?.data[0]);
      x[i] = orig;
      const numeric = (lp - lm) / (2 * eps);
      const err = Math.abs((g[i] as number) - numeric) / Math.max(1, Math.abs(numeric));
      probes++;
      if (err > maxError) {
        maxError = err;
        worst = `${p}[${i}]: analytic ${g[i]} vs numeric ${numeric}`;
      }
    }
  }
  await session.release();
  return { maxError, worst, probes };
}
