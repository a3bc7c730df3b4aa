// Reader for legacy `torch.save` files (torch 0.4 to 1.5, and later with
// _use_new_zipfile_serialization=False), the format of many older Hub uploads (BioBERT and
// Bio_ClinicalBERT conversions): pickles of the magic number, the protocol version (1001) and
// sys_info, then the state dict pickle, then the list of storage keys, then each storage as an
// int64 element count and its raw bytes. Same no-code-execution policy as the zip reader.
// Not for: the older tar layout (torch < 0.4) or storage views.

import type { HostTensor, TypedArray } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import type { PickleHooks } from './pickle-vm.ts';
import { unpickleAt as unpickleFrom } from './pickle-vm.ts';
import { DTYPE_BYTES, typedArrayFromBytes } from './tensor-bytes.ts';
import type { StorageRef } from './torch-state-dict.ts';
import { allowedGlobal, describe, stateDictHooks, storageRef, toStateDict, type TorchReadBudget } from './torch-state-dict.ts';

const MAGIC = 0x1950a86a20f9469cfc6cn;
const PROTOCOL_VERSION = 1001;

/** Whether `bytes` start with the pickled magic number of a legacy torch.save file. */
export function looksLikeLegacyTorch(bytes: Uint8Array): boolean {
  // PROTO 2, LONG1 of 10 bytes, then the magic number little-endian.
  if (bytes.byteLength < 14 || bytes[0] !== 0x80 || bytes[2] !== 0x8a || bytes[3] !== 0x0a) return false;
  let v = 0n;
  for (let i = 13; i >= 4; i--) v = (v << 8n) | BigInt(bytes[i] as number);
  return v === MAGIC;
}

/** Parse legacy torch.save bytes into a state dict; `file` is only used in error messages. */
export function parseLegacyTorch(bytes: Uint8Array, file: string, budget?: TorchReadBudget): Map<string, HostTensor> {
  const fail = (reason: string): never => {
    throw new CheckpointError(file, `legacy PyTorch checkpoint: ${reason}`);
  };
  // The pickle interpreter's own errors (a truncated or damaged pickle) say which format it was.
  const unpickleAt = (data: Uint8Array, start: number, hooks: PickleHooks): { value: unknown; end: number } => {
    try {
      return unpickleFrom(data, start, hooks, file);
    } catch (e) {
      if (e instanceof CheckpointError && !e.reason.startsWith('legacy')) fail(e.reason);
      throw e;
    }
  };
  // The header pickles hold plain values only.
  const plain: PickleHooks = {
    global: (m, n) => fail(`unexpected global "${m}.${n}" in the file header`),
    reduce: () => fail('unexpected call in the file header'),
    persistentLoad: () => fail('unexpected persistent id in the file header'),
    build: () => fail('unexpected BUILD in the file header'),
  };
  let at = unpickleAt(bytes, 0, plain);
  if (at.value !== MAGIC) fail('the magic number is wrong (a damaged file?)');
  at = unpickleAt(bytes, at.end, plain);
  if (at.value !== PROTOCOL_VERSION) fail(`protocol version ${describe(at.value)} is not ${PROTOCOL_VERSION}`);
  at = unpickleAt(bytes, at.end, plain);
  if (at.value instanceof Map && at.value.get('little_endian') === false)
    fail('big-endian checkpoints are not supported');

  // The storages' bytes follow the state dict pickle: a first pass finds its end and the
  // storages it names, without rebuilding tensors.
  const refs = new Map<string, StorageRef>();
  const scan: PickleHooks = {
    global: (module, name) => allowedGlobal(module, name, fail),
    persistentLoad(pid) {
      const ref = storageRef(pid, fail);
      refs.set(ref.key, ref);
      return ref;
    },
    // Containers stay containers (SETITEMS fills them); tensors are rebuilt in the second pass.
    reduce: (callable) => (describe(callable) === 'collections.OrderedDict' ? new Map() : null),
    build: (obj) => obj,
  };
  const dictStart = at.end;
  at = unpickleAt(bytes, dictStart, scan);
  const keysAt = unpickleAt(bytes, at.end, plain);
  const keys = keysAt.value;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string'))
    return fail(`the storage key list is ${describe(keys)}, not a list of strings`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const data = new Map<string, Uint8Array>();
  let pos = keysAt.end;
  for (const key of keys) {
    const ref = refs.get(key);
    if (!ref) return fail(`storage "${key}" is listed but no tensor uses it`);
    if (pos + 8 > bytes.byteLength) fail(`truncated: storage "${key}" is missing (the file ends at byte ${bytes.byteLength})`);
    const count = dv.getBigInt64(pos, true);
    if (count !== BigInt(ref.numel))
      fail(`storage "${key}" holds ${count} elements but the state dict says ${ref.numel}`);
    const size = ref.numel * DTYPE_BYTES[ref.dtype];
    if (pos + 8 + size > bytes.byteLength)
      fail(`truncated: storage "${key}" needs ${size} bytes, the file ends ${bytes.byteLength - pos - 8} bytes after its start`);
    data.set(key, bytes.subarray(pos + 8, pos + 8 + size));
    pos += 8 + size;
  }
  const readStorage = (ref: StorageRef): TypedArray => {
    const b = data.get(ref.key);
    if (!b) return fail(`storage "${ref.key}" is not in the file's storage list`);
    return typedArrayFromBytes(b, ref.dtype, ref.numel);
  };
  const root = unpickleAt(bytes, dictStart, stateDictHooks(readStorage, fail, budget)).value;
  return toStateDict(root, fail);
}
