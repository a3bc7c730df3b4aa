// The pickle policy shared by both `torch.save` layouts (zip archives, torch >= 1.6, and the
// legacy pickle stream before it): which globals and calls are allowed (OrderedDict, tensor
// rebuild functions, storage classes), how tensors are rebuilt over their storages, and how the
// unpickled root becomes a state dict. Not for: finding the storages' bytes (each layout's reader).

import type { DType, HostTensor, TypedArray } from '../onnx/ir.ts';
import { allocate, numel } from '../onnx/ir.ts';
import { MAX_WEIGHTS_BYTES } from './model-file.ts';
import type { PickleGlobal, PickleHooks } from './pickle-vm.ts';
import { DTYPE_BYTES } from './tensor-bytes.ts';

const STORAGE_DTYPES: Record<string, DType> = {
  FloatStorage: 'float32',
  HalfStorage: 'float16',
  BFloat16Storage: 'bfloat16',
  DoubleStorage: 'float64',
  LongStorage: 'int64',
  IntStorage: 'int32',
  ShortStorage: 'int16',
  CharStorage: 'int8',
  ByteStorage: 'uint8',
  BoolStorage: 'bool',
};
const TORCH_DTYPES: Record<string, DType> = {
  float32: 'float32',
  float: 'float32',
  float16: 'float16',
  half: 'float16',
  bfloat16: 'bfloat16',
  float64: 'float64',
  double: 'float64',
  int64: 'int64',
  long: 'int64',
  int32: 'int32',
  int: 'int32',
  int16: 'int16',
  short: 'int16',
  int8: 'int8',
  uint8: 'uint8',
  bool: 'bool',
};
const FUNCTIONS = new Set([
  'collections.OrderedDict',
  'torch._utils._rebuild_tensor_v2',
  // torch 0.4's legacy files: the same arguments without requires_grad and hooks.
  'torch._utils._rebuild_tensor',
  'torch._utils._rebuild_parameter',
]);

interface TorchDType {
  kind: 'dtype';
  dtype: DType;
}
/**
 * What reading one checkpoint may produce beyond its file bytes, shared by every shard of a
 * sharded one so that the bound holds for the shards together: bytes unpacked from compressed
 * zip entries, and bytes of non-contiguous views gathered into new arrays (a zero-stride view can
 * describe far more elements than its storage holds). Both are checked before allocating.
 */
export interface TorchReadBudget {
  /** The most bytes each of `unpacked` and `copied` may reach (default MAX_WEIGHTS_BYTES). */
  limit: number;
  unpacked: number;
  copied: number;
}

/** A fresh budget for one checkpoint (one file, or all the shards of one). */
export function torchReadBudget(limit: number = MAX_WEIGHTS_BYTES): TorchReadBudget {
  return { limit, unpacked: 0, copied: 0 };
}

/** A storage as a persistent id describes it: `key` names its bytes in the file. */
export interface StorageRef {
  kind: 'storage';
  key: string;
  dtype: DType;
  numel: number;
}

type Fail = (reason: string) => never;

/** The allowed pickle globals: OrderedDict, the rebuild functions, storage classes and dtypes. */
export function allowedGlobal(module: string, name: string, fail: Fail): unknown {
  const full = `${module}.${name}`;
  if (FUNCTIONS.has(full)) return { kind: 'global', module, name } satisfies PickleGlobal;
  if (module === 'torch' && STORAGE_DTYPES[name])
    return { kind: 'dtype', dtype: STORAGE_DTYPES[name] } satisfies TorchDType;
  if (module === 'torch' && TORCH_DTYPES[name])
    return { kind: 'dtype', dtype: TORCH_DTYPES[name] } satisfies TorchDType;
  return fail(`refuses to load pickle global "${full}": only tensor storage is allowed`);
}

/**
 * The storage a persistent id names: ('storage', type, key, location, numel) in zip archives,
 * with a sixth item, the view (None since torch 1.0), in legacy files.
 */
export function storageRef(pid: unknown, fail: Fail): StorageRef {
  if (!Array.isArray(pid) || pid[0] !== 'storage' || pid.length < 5)
    fail(`unsupported persistent id ${describe(pid)}`);
  const [, type, key, , count, view] = pid as unknown[];
  if (!isDType(type)) return fail(`persistent id has an unknown storage type ${describe(type)}`);
  if (typeof key !== 'string' || !/^[\w.-]+$/.test(key))
    return fail(`persistent id has an invalid storage key ${describe(key)}`);
  if (view !== undefined && view !== null)
    fail('holds storage views (torch before 1.0): load it with torch and save it again with a recent torch, or convert it to model.safetensors');
  return { kind: 'storage', key, dtype: type.dtype, numel: toCount(count, 'storage size', fail) };
}

/**
 * Hooks that rebuild a state dict. `readStorage` gives a storage's elements; it is called once
 * per storage key, and a key described twice differently is refused. Gathered views count
 * against `budget` (that of the whole checkpoint when this file is one of its shards).
 */
export function stateDictHooks(readStorage: (ref: StorageRef) => TypedArray, fail: Fail, budget: TorchReadBudget = torchReadBudget()): PickleHooks {
  const storages = new Map<string, { ref: StorageRef; arr: TypedArray }>();
  const loadStorage = (ref: StorageRef): TypedArray => {
    const seen = storages.get(ref.key);
    if (seen) {
      // torch.save describes a shared storage the same way each time; a crafted file could
      // otherwise get another dtype's bytes, or a tensor longer than its data.
      if (seen.ref.dtype !== ref.dtype || seen.ref.numel !== ref.numel) {
        fail(`storage "${ref.key}" is described twice differently (${seen.ref.numel} ${seen.ref.dtype}, then ${ref.numel} ${ref.dtype})`);
      }
      return seen.arr;
    }
    const arr = readStorage(ref);
    storages.set(ref.key, { ref, arr });
    return arr;
  };
  const earlier = budget.copied; // what the views of shards read before this file gathered
  return {
    global: (module, name) => allowedGlobal(module, name, fail),
    persistentLoad: (pid) => storageRef(pid, fail),
    reduce(callable, args) {
      const name = isGlobal(callable) ? `${callable.module}.${callable.name}` : describe(callable);
      if (name === 'collections.OrderedDict') {
        const m = new Map<unknown, unknown>();
        const items = args[0];
        if (Array.isArray(items))
          for (const kv of items) if (Array.isArray(kv)) m.set(kv[0], kv[1]);
        return m;
      }
      if (name === 'torch._utils._rebuild_tensor_v2' || name === 'torch._utils._rebuild_tensor')
        return rebuildTensor(args, loadStorage, budget, earlier, fail);
      if (name === 'torch._utils._rebuild_parameter') {
        if (!isTensor(args[0])) fail('_rebuild_parameter without a tensor');
        return args[0];
      }
      return fail(`refuses to call ${name}: only tensor storage is allowed`);
    },
    build(obj, state) {
      // OrderedDict state (e.g. the state dict's `_metadata`) carries nothing we need.
      if (obj instanceof Map || isTensor(obj)) return obj;
      return fail(`refuses BUILD on ${describe(obj)} with state ${describe(state)}`);
    },
  };
}

/** The name → tensor map of an unpickled root (a state dict, or {"state_dict": …}). */
export function toStateDict(root: unknown, fail: Fail): Map<string, HostTensor> {
  let dict: Map<unknown, unknown> =
    root instanceof Map
      ? (root as Map<unknown, unknown>)
      : fail(`top-level object is ${describe(root)}, expected a state dict`);
  const nested = dict.get('state_dict');
  if (nested instanceof Map && ![...dict.values()].some(isTensor)) dict = nested;
  const out = new Map<string, HostTensor>();
  for (const [k, v] of dict) {
    if (typeof k !== 'string') fail(`state dict key ${describe(k)} is not a string`);
    if (!isTensor(v)) fail(`state dict entry "${String(k)}" is ${describe(v)}, not a tensor`);
    out.set(k, v);
  }
  return out;
}

function rebuildTensor(
  args: unknown[],
  loadStorage: (ref: StorageRef) => TypedArray,
  budget: TorchReadBudget,
  earlier: number,
  fail: (r: string) => never,
): HostTensor {
  const [storage, offsetArg, sizeArg, strideArg] = args;
  if (!isStorage(storage))
    return fail(`_rebuild_tensor_v2 without a storage (got ${describe(storage)})`);
  const offset = toCount(offsetArg, 'storage offset', fail);
  if (!Array.isArray(sizeArg) || !Array.isArray(strideArg) || sizeArg.length !== strideArg.length) {
    return fail(
      `tensor in storage "${storage.key}" has invalid size/stride ${describe(sizeArg)} / ${describe(strideArg)}`,
    );
  }
  const dims = sizeArg.map((d) => toCount(d, 'tensor size', fail));
  const strides = strideArg.map((d) => toCount(d, 'tensor stride', fail));
  const n = numel(dims);
  const what = `tensor [${dims.join(', ')}] at offset ${offset} in storage "${storage.key}" (${storage.numel} elements)`;
  if (n === 0) return { dtype: storage.dtype, dims, data: allocate(storage.dtype, 0) };
  let last = offset;
  for (let i = 0; i < dims.length; i++) last += ((dims[i] as number) - 1) * (strides[i] as number);
  if (last >= storage.numel) fail(`${what} reads past the end of its storage`);
  const src = loadStorage(storage);
  let contiguous = true;
  let expect = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    if (dims[i] !== 1 && strides[i] !== expect) contiguous = false;
    expect *= dims[i] as number;
  }
  if (contiguous) return { dtype: storage.dtype, dims, data: src.subarray(offset, offset + n) };
  // A view with zero strides can describe far more elements than its storage holds: bound the
  // copies as the file size is bounded, before allocating them.
  budget.copied += n * DTYPE_BYTES[storage.dtype];
  if (budget.copied > budget.limit) {
    const others = earlier > 0 ? `, with the ${earlier} bytes the views of the shards read before it expand to` : '';
    fail(`${what} with strides [${strides.join(', ')}] would expand to more than the ${budget.limit} bytes of weights Benchtop reads${others}`);
  }
  // Non-contiguous (e.g. a saved transpose): gather into a fresh row-major array.
  const data = allocate(storage.dtype, n);
  const idx = new Array<number>(dims.length).fill(0);
  let srcPos = offset;
  for (let o = 0; o < n; o++) {
    (data as unknown as unknown[])[o] = (src as unknown as unknown[])[srcPos];
    for (let d = dims.length - 1; d >= 0; d--) {
      const i = (idx[d] as number) + 1;
      if (i < (dims[d] as number)) {
        idx[d] = i;
        srcPos += strides[d] as number;
        break;
      }
      idx[d] = 0;
      srcPos -= (i - 1) * (strides[d] as number);
    }
  }
  return { dtype: storage.dtype, dims, data };
}

/** `v` (a pickle int) as a safe non-negative count, else a failure naming `what`. */
export function toCount(v: unknown, what: string, fail: (r: string) => never): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    return fail(`invalid ${what} ${describe(v)}`);
  return n;
}

function isGlobal(v: unknown): v is PickleGlobal {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'global';
}
function isDType(v: unknown): v is TorchDType {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'dtype';
}
function isStorage(v: unknown): v is StorageRef {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'storage';
}
function isTensor(v: unknown): v is HostTensor {
  return typeof v === 'object' && v !== null && 'dtype' in v && 'dims' in v && 'data' in v;
}

/** A short description of an unpickled value for error messages. */
export function describe(v: unknown, depth = 0): string {
  if (isGlobal(v)) return `${v.module}.${v.name}`;
  if (v instanceof Map) return 'a dict';
  if (Array.isArray(v)) {
    if (depth > 2) return '(...)';
    const items = v.slice(0, 6).map((x) => describe(x, depth + 1));
    return `(${items.join(', ')}${v.length > 6 ? ', ...' : ''})`;
  }
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v);
  if (typeof v === 'object' && v !== null) return (v as { kind?: string }).kind ?? 'an object';
  return String(v);
}
