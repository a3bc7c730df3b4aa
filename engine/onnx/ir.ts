// In-memory ONNX graph IR: plain data (tensors, value infos, nodes, graphs), no protobuf and
// no runtime. The builder produces it, the serializer encodes it, the printer dumps it.

/** Element types the engine handles. float16/bfloat16 are stored as raw Uint16 bits. */
export type DType =
  | 'float32'
  | 'float64'
  | 'float16'
  | 'bfloat16'
  | 'int64'
  | 'int32'
  | 'int16'
  | 'int8'
  | 'uint8'
  | 'bool';

export type TypedArray =
  | Float32Array
  | Float64Array
  | BigInt64Array
  | Int32Array
  | Int16Array
  | Int8Array
  | Uint8Array
  | Uint16Array;

/** A dense tensor in host memory, row-major. */
export interface HostTensor {
  dtype: DType;
  dims: number[];
  data: TypedArray;
}

/** A dimension: a fixed size or a symbolic name such as "B" or "T" (or an expression "B*T"). */
export type Dim = number | string;

export interface ValueInfo {
  name: string;
  dtype: DType;
  shape: Dim[];
}

/** Attribute values. Numbers are ints unless the op catalogue marks the attribute as float. */
export type AttrValue = number | number[] | string | string[] | HostTensor | Graph;

export interface Node {
  opType: string;
  domain: string;
  name: string;
  inputs: string[]; // '' marks an omitted optional input
  outputs: string[];
  attrs: Record<string, AttrValue>;
}

export interface Graph {
  name: string;
  nodes: Node[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  initializers: Map<string, HostTensor>;
  /** Known types/shapes of intermediate values (kept for printing and debugging). */
  valueInfo: Map<string, ValueInfo>;
}

export interface Model {
  graph: Graph;
  opsetVersion: number;
  producerName: string;
  /** Free-form metadata stored in ModelProto.metadata_props. */
  metadata: Record<string, string>;
}

export function numel(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

export function isHostTensor(v: unknown): v is HostTensor {
  return typeof v === 'object' && v !== null && 'dtype' in v && 'dims' in v && 'data' in v;
}

export function isGraph(v: unknown): v is Graph {
  return typeof v === 'object' && v !== null && 'nodes' in v && 'initializers' in v;
}

/** Allocate a zero-filled typed array for a dtype. */
export function allocate(dtype: DType, length: number): TypedArray {
  switch (dtype) {
    case 'float32':
      return new Float32Array(length);
    case 'float64':
      return new Float64Array(length);
    case 'float16':
    case 'bfloat16':
      return new Uint16Array(length);
    case 'int64':
      return new BigInt64Array(length);
    case 'int32':
      return new Int32Array(length);
    case 'int16':
      return new Int16Array(length);
    case 'int8':
      return new Int8Array(length);
    case 'uint8':
    case 'bool':
      return new Uint8Array(length);
  }
}

/** A copy with its own buffer. */
export function copyTensor(t: HostTensor): HostTensor {
  return { dtype: t.dtype, dims: [...t.dims], data: t.data.slice() };
}

/** A copy of every tensor of a named set (a snapshot of state that is updated in place). */
export function copyTensors(m: ReadonlyMap<string, HostTensor>): Map<string, HostTensor> {
  return new Map([...m].map(([k, t]) => [k, copyTensor(t)]));
}

export function float32Tensor(dims: number[], data?: ArrayLike<number>): HostTensor {
  const out = new Float32Array(numel(dims));
  if (data) out.set(data);
  return { dtype: 'float32', dims, data: out };
}

export function int64Tensor(dims: number[], data: ArrayLike<number | bigint>): HostTensor {
  const out = new BigInt64Array(numel(dims));
  for (let i = 0; i < out.length; i++) out[i] = BigInt(data[i] ?? 0);
  return { dtype: 'int64', dims, data: out };
}
