// The only module that touches protobuf: encodes IR models to ONNX ModelProto bytes (and
// decodes them back, for inspection and tests) using the maintained `onnx-proto` schema
// (protobufjs). Tensor payloads travel as raw little-endian bytes.

import { createRequire } from 'node:module';
import type { onnx as OnnxNs } from 'onnx-proto';
import { dtypeFromOnnx, onnxDtypeCode } from './infer.ts';
import type { AttrValue, DType, Dim, Graph, HostTensor, Model, Node, ValueInfo } from './ir.ts';
import { allocate, isGraph, isHostTensor, numel } from './ir.ts';

// NOTE: onnx-proto is CommonJS; createRequire keeps this file valid ESM under Node and Vitest.
const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNs };
const AT = onnx.AttributeProto.AttributeType;

/** Attributes that ONNX declares as float (everything else numeric is int). */
const FLOAT_ATTRS = new Set(['epsilon', 'alpha', 'beta', 'gamma', 'ratio', 'value_float', 'bias', 'lambd']);

export const IR_VERSION = 8;

function tensorToProto(name: string, t: HostTensor): OnnxNs.ITensorProto {
  const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return { name, dims: t.dims, dataType: onnxDtypeCode(t.dtype), rawData: bytes };
}

function valueInfoToProto(v: ValueInfo): OnnxNs.IValueInfoProto {
  return {
    name: v.name,
    type: {
      tensorType: {
        elemType: onnxDtypeCode(v.dtype),
        shape: { dim: v.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attrToProto(name: string, v: AttrValue): OnnxNs.IAttributeProto {
  if (typeof v === 'number') {
    return FLOAT_ATTRS.has(name) ? { name, type: AT.FLOAT, f: v } : { name, type: AT.INT, i: v };
  }
  if (typeof v === 'string') return { name, type: AT.STRING, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) {
    if (v.length > 0 && typeof v[0] === 'string') {
      return { name, type: AT.STRINGS, strings: (v as string[]).map((s) => new TextEncoder().encode(s)) };
    }
    return FLOAT_ATTRS.has(name) ? { name, type: AT.FLOATS, floats: v as number[] } : { name, type: AT.INTS, ints: v as number[] };
  }
  if (isHostTensor(v)) return { name, type: AT.TENSOR, t: tensorToProto('', v) };
  if (isGraph(v)) return { name, type: AT.GRAPH, g: graphToProto(v) };
  throw new Error(`attribute "${name}": unsupported value`);
}

function nodeToProto(n: Node): OnnxNs.INodeProto {
  return {
    opType: n.opType,
    domain: n.domain,
    name: n.name,
    input: n.inputs,
    output: n.outputs,
    attribute: Object.entries(n.attrs).map(([k, v]) => attrToProto(k, v)),
  };
}

function graphToProto(g: Graph): OnnxNs.IGraphProto {
  return {
    name: g.name,
    node: g.nodes.map(nodeToProto),
    input: g.inputs.map(valueInfoToProto),
    output: g.outputs.map(valueInfoToProto),
    initializer: [...g.initializers].map(([name, t]) => tensorToProto(name, t)),
  };
}

/** Encode a model as ONNX protobuf bytes. */
export function serializeModel(model: Model): Uint8Array {
  const domains = new Set(model.graph.nodes.map((n) => n.domain).filter((d) => d !== ''));
  const proto = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    producerName: model.producerName,
    producerVersion: '0.1.0',
    opsetImport: [{ domain: '', version: model.opsetVersion }, ...[...domains].map((domain) => ({ domain, version: 1 }))],
    graph: graphToProto(model.graph),
    metadataProps: Object.entries(model.metadata).map(([key, value]) => ({ key, value })),
  });
  return onnx.ModelProto.encode(proto).finish();
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

function tensorFromProto(t: OnnxNs.ITensorProto): HostTensor {
  const dtype: DType = dtypeFromOnnx(t.dataType ?? 0);
  const dims = (t.dims ?? []).map(toNumber);
  const data = allocate(dtype, numel(dims));
  const raw = t.rawData;
  if (raw && raw.length > 0) {
    new Uint8Array(data.buffer).set(raw.subarray(0, data.byteLength));
  } else if (t.floatData && t.floatData.length > 0) {
    (data as Float32Array).set(t.floatData);
  } else if (t.int64Data && t.int64Data.length > 0) {
    (data as BigInt64Array).set(t.int64Data.map((x) => BigInt(toNumber(x))));
  } else if (t.int32Data && t.int32Data.length > 0) {
    (data as Int32Array).set(t.int32Data);
  }
  return { dtype, dims, data };
}

function valueInfoFromProto(v: OnnxNs.IValueInfoProto): ValueInfo {
  const tt = v.type?.tensorType;
  const shape: Dim[] = (tt?.shape?.dim ?? []).map((d) => (d.dimParam ? d.dimParam : toNumber(d.dimValue)));
  return { name: v.name ?? '', dtype: dtypeFromOnnx(tt?.elemType ?? 1), shape };
}

function attrFromProto(a: OnnxNs.IAttributeProto): AttrValue {
  const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
  switch (a.type) {
    case AT.FLOAT: return a.f ?? 0;
    case AT.INT: return toNumber(a.i);
    case AT.STRING: return dec(a.s ?? new Uint8Array());
    case AT.FLOATS: return [...(a.floats ?? [])];
    case AT.INTS: return (a.ints ?? []).map(toNumber);
    case AT.STRINGS: return (a.strings ?? []).map(dec);
    case AT.TENSOR: return tensorFromProto(a.t ?? {});
    case AT.GRAPH: return graphFromProto(a.g ?? {});
    default: throw new Error(`attribute "${a.name ?? ''}": unsupported type ${String(a.type)}`);
  }
}

function graphFromProto(g: OnnxNs.IGraphProto): Graph {
  return {
    name: g.name ?? 'graph',
    nodes: (g.node ?? []).map((n) => ({
      opType: n.opType ?? '',
      domain: n.domain ?? '',
      name: n.name ?? '',
      inputs: [...(n.input ?? [])],
      outputs: [...(n.output ?? [])],
      attrs: Object.fromEntries((n.attribute ?? []).map((a) => [a.name ?? '', attrFromProto(a)])),
    })),
    inputs: (g.input ?? []).map(valueInfoFromProto),
    outputs: (g.output ?? []).map(valueInfoFromProto),
    initializers: new Map((g.initializer ?? []).map((t) => [t.name ?? '', tensorFromProto(t)])),
    valueInfo: new Map((g.valueInfo ?? []).map((v) => [v.name ?? '', valueInfoFromProto(v)])),
  };
}

/** Decode ONNX protobuf bytes into the IR. */
export function deserializeModel(bytes: Uint8Array): Model {
  const m = onnx.ModelProto.decode(bytes);
  const opset = (m.opsetImport ?? []).find((o) => (o.domain ?? '') === '');
  return {
    graph: graphFromProto(m.graph ?? {}),
    opsetVersion: toNumber(opset?.version ?? 0),
    producerName: m.producerName ?? '',
    metadata: Object.fromEntries((m.metadataProps ?? []).map((p) => [p.key ?? '', p.value ?? ''])),
  };
}
