// Static shape and dtype inference for the ops the engine emits, with symbolic dims.
// It exists so that autodiff can reduce broadcast gradients without runtime Shape ops.
// An op missing here is an error: add its rule rather than guessing.

import { broadcastShapes, divDims, mulDims, sameDim } from './dims.ts';
import type { AttrValue, DType, Dim, HostTensor, ValueInfo } from './ir.ts';
import { isHostTensor } from './ir.ts';

export interface InferInput {
  info: ValueInfo | undefined; // undefined for an omitted optional input
  value: HostTensor | undefined; // known constant value
}

type Out = { dtype: DType; shape: Dim[] };

const ONNX_TO_DTYPE: Record<number, DType> = {
  1: 'float32', 2: 'uint8', 3: 'int8', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool',
  10: 'float16', 11: 'float64', 16: 'bfloat16',
};

export function dtypeFromOnnx(code: number): DType {
  const d = ONNX_TO_DTYPE[code];
  if (!d) throw new Error(`unsupported ONNX element type ${code}`);
  return d;
}

export function onnxDtypeCode(dtype: DType): number {
  for (const [code, d] of Object.entries(ONNX_TO_DTYPE)) if (d === dtype) return Number(code);
  throw new Error(`unsupported dtype ${dtype}`);
}

const UNARY = new Set([
  'Neg', 'Exp', 'Log', 'Sqrt', 'Tanh', 'Erf', 'Relu', 'Sigmoid', 'Abs', 'Reciprocal', 'Identity',
  'Softmax', 'LogSoftmax', 'Not', 'Sign', 'Gelu', 'Floor', 'Ceil', 'Sin', 'Cos', 'IsNaN', 'IsInf',
]);
const BINARY = new Set(['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Max', 'Min', 'Sum', 'Mean', 'Mod']);
const COMPARE = new Set(['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'And', 'Or', 'Xor']);

function ints(t: HostTensor | undefined, what: string): number[] {
  if (!t) throw new Error(`${what} must be a constant for static shape inference`);
  return Array.from(t.data as ArrayLike<number | bigint>, Number);
}

function normAxis(axis: number, rank: number): number {
  return axis < 0 ? axis + rank : axis;
}

function reduceShape(shape: Dim[], axes: number[] | undefined, keepdims: boolean): Dim[] {
  const rank = shape.length;
  const set = new Set((axes ?? shape.map((_, i) => i)).map((a) => normAxis(a, rank)));
  const out: Dim[] = [];
  shape.forEach((d, i) => {
    if (!set.has(i)) out.push(d);
    else if (keepdims) out.push(1);
  });
  return out;
}

function reshape(input: Dim[], target: number[], allowZero: boolean): Dim[] {
  const out: Dim[] = target.map((t, i) => (t === 0 && !allowZero ? (input[i] as Dim) : t));
  const neg = out.findIndex((d) => d === -1);
  if (neg >= 0) {
    const known = mulDims(out.filter((_, i) => i !== neg));
    const total = mulDims(input);
    const rest = divDims(total, known);
    if (rest === undefined) throw new Error(`cannot reshape [${input.join(',')}] to [${target.join(',')}]`);
    out[neg] = rest;
  } else if (!sameDim(mulDims(out), mulDims(input))) {
    throw new Error(`cannot reshape [${input.join(',')}] to [${target.join(',')}]`);
  }
  return out;
}

/** Infer output types and shapes of one node. */
export function inferNode(
  opType: string,
  inputs: InferInput[],
  attrs: Record<string, AttrValue>,
  numOutputs: number,
  opset: number,
): Out[] {
  const x = inputs[0]?.info;
  const need = (i: number): ValueInfo => {
    const v = inputs[i]?.info;
    if (!v) throw new Error(`${opType}: input ${i} is required`);
    return v;
  };
  const attrInt = (k: string, dflt: number): number => (typeof attrs[k] === 'number' ? (attrs[k]) : dflt);
  if (UNARY.has(opType)) return [{ dtype: need(0).dtype, shape: [...need(0).shape] }];
  if (opType === 'IsNaN' || opType === 'IsInf') return [{ dtype: 'bool', shape: [...need(0).shape] }];
  if (BINARY.has(opType) || COMPARE.has(opType)) {
    let shape = [...need(0).shape];
    for (let i = 1; i < inputs.length; i++) shape = broadcastShapes(shape, need(i).shape);
    return [{ dtype: COMPARE.has(opType) ? 'bool' : need(0).dtype, shape }];
  }
  switch (opType) {
    case 'Constant': {
      const v = attrs['value'];
      if (!isHostTensor(v)) throw new Error('Constant: only the tensor "value" attribute is supported');
      return [{ dtype: v.dtype, shape: [...v.dims] }];
    }
    case 'Where':
      return [{ dtype: need(1).dtype, shape: broadcastShapes(broadcastShapes(need(0).shape, need(1).shape), need(2).shape) }];
    case 'Cast':
      return [{ dtype: dtypeFromOnnx(attrInt('to', 1)), shape: [...need(0).shape] }];
    case 'Dropout':
      return [{ dtype: need(0).dtype, shape: [...need(0).shape] }, { dtype: 'bool' as DType, shape: [...need(0).shape] }].slice(0, numOutputs);
    case 'MatMul': {
      const a = need(0).shape;
      const b = need(1).shape;
      if (a.length < 2 || b.length < 2) throw new Error('MatMul: rank-1 operands are not supported');
      const k1 = a[a.length - 1] as Dim;
      const k2 = b[b.length - 2] as Dim;
      if (typeof k1 === 'number' && typeof k2 === 'number' && k1 !== k2)
        throw new Error(`MatMul: inner dims differ ([${a.join(',')}] x [${b.join(',')}])`);
      const batch = broadcastShapes(a.slice(0, -2), b.slice(0, -2));
      return [{ dtype: need(0).dtype, shape: [...batch, a[a.length - 2] as Dim, b[b.length - 1] as Dim] }];
    }
    case 'Transpose': {
      const s = need(0).shape;
      const perm = (attrs['perm'] as number[] | undefined) ?? s.map((_, i) => s.length - 1 - i);
      return [{ dtype: need(0).dtype, shape: perm.map((p) => s[p] as Dim) }];
    }
    case 'Reshape':
      return [{ dtype: need(0).dtype, shape: reshape(need(0).shape, ints(inputs[1]?.value, 'Reshape shape'), attrInt('allowzero', 0) === 1) }];
    case 'Unsqueeze': {
      const axes = ints(inputs[1]?.value, 'Unsqueeze axes');
      const out: Dim[] = [...need(0).shape];
      const rank = out.length + axes.length;
      for (const a of axes.map((a) => normAxis(a, rank)).sort((p, q) => p - q)) out.splice(a, 0, 1);
      return [{ dtype: need(0).dtype, shape: out }];
    }
    case 'Squeeze': {
      const s = need(0).shape;
      const axes = inputs[1]?.value ? ints(inputs[1].value, 'Squeeze axes').map((a) => normAxis(a, s.length)) : s.flatMap((d, i) => (d === 1 ? [i] : []));
      return [{ dtype: need(0).dtype, shape: s.filter((_, i) => !axes.includes(i)) }];
    }
    case 'ReduceSum':
    case 'ReduceMean':
    case 'ReduceMax':
    case 'ReduceMin':
    case 'ReduceSumSquare':
    case 'ReduceL2': {
      const axesAsInput = opType === 'ReduceSum' || opset >= 18;
      const axes = axesAsInput
        ? inputs[1]?.info ? ints(inputs[1].value, `${opType} axes`) : undefined
        : (attrs['axes'] as number[] | undefined);
      return [{ dtype: need(0).dtype, shape: reduceShape(need(0).shape, axes, attrInt('keepdims', 1) === 1) }];
    }
    case 'ArgMax':
      return [{ dtype: 'int64', shape: reduceShape(need(0).shape, [attrInt('axis', 0)], attrInt('keepdims', 1) === 1) }];
    case 'Gather': {
      const s = need(0).shape;
      const axis = normAxis(attrInt('axis', 0), s.length);
      return [{ dtype: need(0).dtype, shape: [...s.slice(0, axis), ...need(1).shape, ...s.slice(axis + 1)] }];
    }
    case 'GatherElements':
      return [{ dtype: need(0).dtype, shape: [...need(1).shape] }];
    case 'ScatterElements':
    case 'ScatterND':
      return [{ dtype: need(0).dtype, shape: [...need(0).shape] }];
    case 'Shape':
      return [{ dtype: 'int64', shape: [need(0).shape.length] }];
    case 'Size':
      return [{ dtype: 'int64', shape: [] }];
    case 'ConstantOfShape': {
      const v = attrs['value'];
      const dtype = isHostTensor(v) ? v.dtype : 'float32';
      const shapeIn = need(0);
      const shape: Dim[] = inputs[0]?.value ? ints(inputs[0].value, 'shape') : Array.from({ length: Number(shapeIn.shape[0]) }, (_, i) => `?${i}`);
      return [{ dtype, shape }];
    }
    case 'Expand': {
      const target = inputs[1]?.value ? ints(inputs[1].value, 'Expand shape') : undefined;
      if (!target) throw new Error('Expand: shape must be constant');
      return [{ dtype: need(0).dtype, shape: broadcastShapes(need(0).shape, target) }];
    }
    case 'Concat': {
      const axis = normAxis(attrInt('axis', 0), need(0).shape.length);
      const shape = [...need(0).shape];
      shape[axis] = mulDims([1]);
      const parts = inputs.map((inp) => inp.info?.shape[axis] ?? 0);
      shape[axis] = parts.every((p) => typeof p === 'number') ? (parts).reduce((s, p) => s + p, 0) : parts.join('+');
      return [{ dtype: need(0).dtype, shape }];
    }
    case 'Split': {
      const shape = need(0).shape;
      const axis = normAxis(attrInt('axis', 0), shape.length);
      const sizes = ints(inputs[1]?.value, 'Split sizes');
      if (sizes.length !== numOutputs) throw new Error(`Split: ${sizes.length} sizes for ${numOutputs} outputs`);
      return sizes.map((n) => ({ dtype: need(0).dtype, shape: shape.map((d, i) => (i === axis ? n : d)) }));
    }
    case 'Slice': {
      const s = [...need(0).shape];
      const starts = ints(inputs[1]?.value, 'Slice starts');
      const ends = ints(inputs[2]?.value, 'Slice ends');
      const axes = inputs[3]?.info ? ints(inputs[3].value, 'Slice axes') : starts.map((_, i) => i);
      const steps = inputs[4]?.info ? ints(inputs[4].value, 'Slice steps') : starts.map(() => 1);
      axes.forEach((a0, i) => {
        const a = normAxis(a0, s.length);
        const dim = s[a] as Dim;
        const step = steps[i] as number;
        if (typeof dim !== 'number') {
          const st = starts[i] as number;
          const en = ends[i] as number;
          if (st >= 0 && en >= 0 && en < 2 ** 31 && step === 1) s[a] = en - st;
          else s[a] = `${dim}[slice]`;
          return;
        }
        const clamp = (v: number): number => Math.min(Math.max(v < 0 ? v + dim : v, 0), dim);
        const st = clamp(starts[i] as number);
        const en = clamp(ends[i] as number);
        s[a] = Math.max(0, Math.ceil((en - st) / step));
      });
      return [{ dtype: need(0).dtype, shape: s }];
    }
    case 'LayerNormalization': {
      const s = need(0).shape;
      const axis = normAxis(attrInt('axis', -1), s.length);
      const stat: Dim[] = s.map((d, i) => (i < axis ? d : 1));
      return [
        { dtype: need(0).dtype, shape: [...s] },
        { dtype: 'float32' as DType, shape: stat },
        { dtype: 'float32' as DType, shape: [...stat] },
      ].slice(0, numOutputs);
    }
    case 'SoftmaxCrossEntropyLoss': {
      const reduction = (attrs['reduction'] as string | undefined) ?? 'mean';
      const loss: Dim[] = reduction === 'none' ? [need(0).shape[0] as Dim, ...need(0).shape.slice(2)] : [];
      return [
        { dtype: need(0).dtype, shape: loss },
        { dtype: need(0).dtype, shape: [...need(0).shape] },
      ].slice(0, numOutputs);
    }
    case 'OneHot': {
      const depth = ints(inputs[1]?.value, 'OneHot depth')[0] as number;
      const s = [...need(0).shape];
      s.splice(normAxis(attrInt('axis', -1), s.length + 1), 0, depth);
      return [{ dtype: need(2).dtype, shape: s }];
    }
    case 'Range':
      return [{ dtype: need(0).dtype, shape: ['R'] }];
    default:
      if (x === undefined) throw new Error(`no shape inference for op "${opType}"`);
      throw new Error(`no shape inference for op "${opType}": add it to engine/onnx/infer.ts`);
  }
}
