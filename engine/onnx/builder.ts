// GraphBuilder: builds an IR graph with methods named after ONNX ops (b.MatMul(x, w)), infers
// static (possibly symbolic) shapes as it goes, and tracks constant values. It does not run
// or serialise anything. Values are referred to by name (a string), as in ONNX.

import { inferNode, onnxDtypeCode } from './infer.ts';
import type { AttrValue, DType, Dim, Graph, HostTensor, Node, ValueInfo } from './ir.ts';
import { float32Tensor, int64Tensor, isHostTensor } from './ir.ts';

export const DEFAULT_OPSET = 17;

export interface OpOptions {
  /** Output value names (defaults are generated from the node name; so is an empty one). */
  outputs?: string[];
  numOutputs?: number;
  name?: string;
  domain?: string;
  /** Output infos for ops without shape inference (e.g. Loop). */
  outputInfos?: { dtype: DType; shape: Dim[] }[];
}

export class GraphBuilder {
  readonly opset: number;
  readonly nodes: Node[] = [];
  readonly inputs: ValueInfo[] = [];
  readonly outputs: ValueInfo[] = [];
  readonly initializers = new Map<string, HostTensor>();
  readonly infos = new Map<string, ValueInfo>();
  readonly constants = new Map<string, HostTensor>();
  #names = new Set<string>();
  #nodeNames = new Set<string>();
  #counter = 0;
  #scope: string[] = [];
  #constCache = new Map<string, string>();

  constructor(
    readonly name = 'graph',
    opset = DEFAULT_OPSET,
  ) {
    this.opset = opset;
  }

  /** Run fn with node names prefixed by `prefix/`. */
  scope<T>(prefix: string, fn: () => T): T {
    this.#scope.push(prefix);
    try {
      return fn();
    } finally {
      this.#scope.pop();
    }
  }

  /** A value name not used yet, derived from base. */
  uniqueName(base: string, taken: Set<string> = this.#names): string {
    let name = base;
    while (taken.has(name)) name = `${base}_${++this.#counter}`;
    taken.add(name);
    return name;
  }

  info(value: string): ValueInfo {
    const v = this.infos.get(value);
    if (!v) throw new Error(`unknown value "${value}"`);
    return v;
  }

  shape(value: string): Dim[] {
    return this.info(value).shape;
  }

  dtype(value: string): DType {
    return this.info(value).dtype;
  }

  input(name: string, dtype: DType, shape: Dim[]): string {
    if (this.#names.has(name)) throw new Error(`duplicate value name "${name}"`);
    this.#names.add(name);
    const vi = { name, dtype, shape };
    this.inputs.push(vi);
    this.infos.set(name, vi);
    return name;
  }

  /** Declare a value of an enclosing graph that this (Loop body) graph reads. */
  outer(name: string, dtype: DType, shape: Dim[]): string {
    if (this.#names.has(name)) throw new Error(`duplicate value name "${name}"`);
    this.#names.add(name);
    this.infos.set(name, { name, dtype, shape });
    return name;
  }

  initializer(name: string, tensor: HostTensor): string {
    if (this.#names.has(name)) throw new Error(`duplicate value name "${name}"`);
    this.#names.add(name);
    this.initializers.set(name, tensor);
    this.infos.set(name, { name, dtype: tensor.dtype, shape: [...tensor.dims] });
    this.constants.set(name, tensor);
    return name;
  }

  /** Mark a value as a graph output, optionally renaming it through an Identity. */
  output(value: string, name?: string): string {
    let v = value;
    if (name !== undefined && name !== value) v = this.op('Identity', [value], {}, { outputs: [name] })[0] as string;
    const info = this.info(v);
    this.outputs.push({ ...info, name: v });
    return v;
  }

  /**
   * Mark a node's output as a graph output under `name` by renaming it in place: no Identity
   * copy (a training step's outputs are hundreds of MB). The caller must not use `value`
   * afterwards; it no longer exists.
   */
  outputAs(value: string, name: string): string {
    if (!this.producer(value) || this.outputs.some((o) => o.name === value)) return this.output(value, name);
    if (this.#names.has(name)) throw new Error(`duplicate value name "${name}"`);
    this.#rename(value, name);
    return this.output(name);
  }

  #rename(from: string, to: string): void {
    this.#names.add(to);
    // In place, without allocating: a training graph renames thousands of outputs (every
    // parameter's and Adam moment's `.next`) across tens of thousands of nodes.
    for (const n of this.nodes) {
      const k = n.outputs.indexOf(from);
      if (k >= 0) n.outputs[k] = to;
      for (let i = 0; i < n.inputs.length; i++) if (n.inputs[i] === from) n.inputs[i] = to;
    }
    const info = this.infos.get(from);
    if (info) this.infos.set(to, { ...info, name: to });
    this.infos.delete(from);
  }

  /** A constant tensor (deduplicated for small values). */
  constant(tensor: HostTensor, name?: string): string {
    const small = tensor.data.length <= 16;
    const key = small ? `${tensor.dtype}|${tensor.dims.join(',')}|${Array.from(tensor.data as ArrayLike<number | bigint>).join(',')}` : '';
    const cached = small ? this.#constCache.get(key) : undefined;
    if (cached) return cached;
    const out = this.op('Constant', [], { value: tensor }, { name: name ?? 'const' })[0] as string;
    this.constants.set(out, tensor);
    if (small) this.#constCache.set(key, out);
    return out;
  }

  scalar(x: number, dtype: DType = 'float32'): string {
    if (dtype === 'int64') return this.constant(int64Tensor([], [x]));
    if (dtype === 'float32') return this.constant(float32Tensor([], [x]));
    if (dtype === 'float64') return this.constant({ dtype, dims: [], data: new Float64Array([x]) });
    throw new Error(`scalar: unsupported dtype ${dtype}`);
  }

  /** A scalar constant with the same element type as `like`. */
  scalarLike(x: number, like: string): string {
    return this.scalar(x, this.dtype(like));
  }

  /** The node that makes `value`, or undefined for inputs and initializers. */
  producer(value: string): Node | undefined {
    // From the end: the values asked about are mostly the ones just built.
    return this.nodes.findLast((n) => n.outputs.includes(value));
  }

  /** A 1-D int64 constant (shapes, axes). */
  ints(values: number[]): string {
    return this.constant(int64Tensor([values.length], values));
  }

  /** Emit a node; returns its output value names. */
  op(opType: string, inputs: string[], attrs: Record<string, AttrValue> = {}, options: OpOptions = {}): string[] {
    const base = [...this.#scope, options.name ?? opType].join('/');
    const nodeName = this.uniqueName(base, this.#nodeNames);
    const numOutputs = options.outputs?.length ?? options.numOutputs ?? 1;
    const outputs = options.outputs
      ? options.outputs.map((o, i) => {
          if (o === '') return this.uniqueName(`${nodeName}:${i}`);
          if (this.#names.has(o)) throw new Error(`duplicate value name "${o}"`);
          this.#names.add(o);
          return o;
        })
      : Array.from({ length: numOutputs }, (_, i) => this.uniqueName(numOutputs === 1 ? nodeName : `${nodeName}:${i}`));
    const inferred =
      options.outputInfos ??
      inferNode(
        opType,
        inputs.map((n) => ({ info: n === '' ? undefined : this.info(n), value: n === '' ? undefined : this.constants.get(n) })),
        attrs,
        numOutputs,
        this.opset,
      );
    outputs.forEach((o, i) => {
      const inf = inferred[i];
      if (inf) this.infos.set(o, { name: o, dtype: inf.dtype, shape: inf.shape });
    });
    this.nodes.push({ opType, domain: options.domain ?? '', name: nodeName, inputs, outputs, attrs });
    return outputs;
  }

  #one(opType: string, inputs: string[], attrs: Record<string, AttrValue> = {}): string {
    return this.op(opType, inputs, attrs)[0] as string;
  }

  build(): Graph {
    return {
      name: this.name,
      nodes: [...this.nodes],
      inputs: [...this.inputs],
      outputs: [...this.outputs],
      initializers: new Map(this.initializers),
      valueInfo: new Map(this.infos),
    };
  }

  // --- ONNX ops (names follow the spec so readers can grep it) ---
  Add(a: string, b: string): string { return this.#one('Add', [a, b]); }
  Sub(a: string, b: string): string { return this.#one('Sub', [a, b]); }
  Mul(a: string, b: string): string { return this.#one('Mul', [a, b]); }
  Div(a: string, b: string): string { return this.#one('Div', [a, b]); }
  Pow(a: string, b: string): string { return this.#one('Pow', [a, b]); }
  Max(a: string, b: string): string { return this.#one('Max', [a, b]); }
  Min(a: string, b: string): string { return this.#one('Min', [a, b]); }
  Sum(...xs: string[]): string { return xs.length === 1 ? (xs[0] as string) : this.#one('Sum', xs); }
  Neg(x: string): string { return this.#one('Neg', [x]); }
  Exp(x: string): string { return this.#one('Exp', [x]); }
  Log(x: string): string { return this.#one('Log', [x]); }
  Sqrt(x: string): string { return this.#one('Sqrt', [x]); }
  Tanh(x: string): string { return this.#one('Tanh', [x]); }
  Erf(x: string): string { return this.#one('Erf', [x]); }
  Relu(x: string): string { return this.#one('Relu', [x]); }
  /** Exact GELU, x·Φ(x), as ORT's com.microsoft Gelu kernel (one pass; float32 only). */
  Gelu(x: string): string {
    return this.op('Gelu', [x], {}, { domain: 'com.microsoft', outputInfos: [{ dtype: this.dtype(x), shape: this.shape(x) }] })[0] as string;
  }
  Sigmoid(x: string): string { return this.#one('Sigmoid', [x]); }
  Abs(x: string): string { return this.#one('Abs', [x]); }
  Reciprocal(x: string): string { return this.#one('Reciprocal', [x]); }
  Identity(x: string): string { return this.#one('Identity', [x]); }
  Not(x: string): string { return this.#one('Not', [x]); }
  Equal(a: string, b: string): string { return this.#one('Equal', [a, b]); }
  Less(a: string, b: string): string { return this.#one('Less', [a, b]); }
  Greater(a: string, b: string): string { return this.#one('Greater', [a, b]); }
  And(a: string, b: string): string { return this.#one('And', [a, b]); }
  Where(c: string, a: string, b: string): string { return this.#one('Where', [c, a, b]); }
  MatMul(a: string, b: string): string { return this.#one('MatMul', [a, b]); }
  Softmax(x: string, axis = -1): string { return this.#one('Softmax', [x], { axis }); }
  LogSoftmax(x: string, axis = -1): string { return this.#one('LogSoftmax', [x], { axis }); }
  Cast(x: string, to: DType): string { return this.#one('Cast', [x], { to: onnxDtypeCode(to) }); }
  Transpose(x: string, perm: number[]): string { return this.#one('Transpose', [x], { perm }); }
  Reshape(x: string, shape: number[] | string): string {
    return this.#one('Reshape', [x, typeof shape === 'string' ? shape : this.ints(shape)]);
  }
  Unsqueeze(x: string, axes: number[]): string { return this.#one('Unsqueeze', [x, this.ints(axes)]); }
  Squeeze(x: string, axes: number[]): string { return this.#one('Squeeze', [x, this.ints(axes)]); }
  Shape(x: string): string { return this.#one('Shape', [x]); }
  Gather(data: string, indices: string, axis = 0): string { return this.#one('Gather', [data, indices], { axis }); }
  GatherElements(data: string, indices: string, axis = 0): string {
    return this.#one('GatherElements', [data, indices], { axis });
  }
  ScatterElements(data: string, indices: string, updates: string, axis = 0, reduction = 'none'): string {
    return this.#one('ScatterElements', [data, indices, updates], { axis, reduction });
  }
  Expand(x: string, shape: number[]): string { return this.#one('Expand', [x, this.ints(shape)]); }
  Concat(xs: string[], axis: number): string { return this.#one('Concat', xs, { axis }); }
  /** Split along `axis` into pieces of the given sizes (opset ≥ 13: sizes as an input). */
  Split(x: string, sizes: number[], axis = 0, outputs?: string[]): string[] {
    return this.op('Split', [x, this.ints(sizes)], { axis }, outputs ? { outputs } : { numOutputs: sizes.length });
  }
  Slice(x: string, starts: number[], ends: number[], axes: number[]): string {
    return this.#one('Slice', [x, this.ints(starts), this.ints(ends), this.ints(axes)]);
  }
  ConstantOfShape(shape: number[], value: HostTensor = float32Tensor([1], [0])): string {
    return this.#one('ConstantOfShape', [this.ints(shape)], { value });
  }
  ArgMax(x: string, axis: number, keepdims = 0): string { return this.#one('ArgMax', [x], { axis, keepdims }); }

  /** ReduceX over axes (all axes when omitted), hiding the opset 13/18 attribute-vs-input split. */
  Reduce(op: 'ReduceSum' | 'ReduceMean' | 'ReduceMax' | 'ReduceSumSquare', x: string, axes?: number[], keepdims = true): string {
    const k = keepdims ? 1 : 0;
    if (op === 'ReduceSum' || this.opset >= 18) return this.#one(op, axes ? [x, this.ints(axes)] : [x], { keepdims: k });
    return this.#one(op, [x], axes ? { axes, keepdims: k } : { keepdims: k });
  }
  ReduceSum(x: string, axes?: number[], keepdims = true): string { return this.Reduce('ReduceSum', x, axes, keepdims); }
  ReduceMean(x: string, axes?: number[], keepdims = true): string { return this.Reduce('ReduceMean', x, axes, keepdims); }
  ReduceMax(x: string, axes?: number[], keepdims = true): string { return this.Reduce('ReduceMax', x, axes, keepdims); }

  LayerNormalization(x: string, scale: string, bias: string, epsilon: number, numOutputs = 1): string[] {
    return this.op('LayerNormalization', [x, scale, bias], { axis: -1, epsilon }, { numOutputs });
  }
  /** Dropout in training mode with a fixed seed; returns [y, mask]. */
  Dropout(x: string, ratio: number, seed: number): [string, string] {
    const r = this.scalar(ratio);
    const training = this.constant({ dtype: 'bool', dims: [], data: new Uint8Array([1]) });
    const [y, mask] = this.op('Dropout', [x, r, training], { seed }, { numOutputs: 2 });
    return [y as string, mask as string];
  }
  SoftmaxCrossEntropyLoss(scores: string, labels: string, ignoreIndex = -100, reduction = 'mean'): string {
    return this.#one('SoftmaxCrossEntropyLoss', [scores, labels], { ignore_index: ignoreIndex, reduction });
  }

  /** Matrix transpose of the last two axes. */
  T(x: string): string {
    const r = this.shape(x).length;
    const perm = Array.from({ length: r }, (_, i) => i);
    perm[r - 1] = r - 2;
    perm[r - 2] = r - 1;
    return this.Transpose(x, perm);
  }

  isConstant(value: string): boolean {
    return this.constants.has(value) && !this.inputs.some((i) => i.name === value);
  }

  constantValue(value: string): HostTensor | undefined {
    return this.constants.get(value);
  }
}

export function attrIsTensor(v: AttrValue): v is HostTensor {
  return isHostTensor(v);
}
