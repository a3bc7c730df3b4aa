// Reader for PyTorch `torch.save` checkpoints (pytorch_model.bin): zip archives (torch >= 1.6)
// here, legacy pickle streams in torch-legacy.ts. Never executes pickle code: only OrderedDict,
// tensor rebuild functions and storage classes are allowed (torch-state-dict.ts).
// Not for: the tar layout of torch < 0.4, TorchScript archives, or writing .bin files.

import type { HostTensor, TypedArray } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { readModelFile } from './model-file.ts';
import { unpickle } from './pickle-vm.ts';
import { DTYPE_BYTES, typedArrayFromBytes } from './tensor-bytes.ts';
import { looksLikeLegacyTorch, parseLegacyTorch } from './torch-legacy.ts';
import type { StorageRef, TorchReadBudget } from './torch-state-dict.ts';
import { stateDictHooks, toStateDict, torchReadBudget } from './torch-state-dict.ts';
import { looksLikeZip, readZip } from './zip-reader.ts';
import type { ZipEntry } from './zip-reader.ts';

/**
 * Read every tensor of a torch checkpoint. Tensors sharing a storage share its memory. `budget`:
 * what unpacking and gathering views may allocate, shared by the shards of one checkpoint.
 */
export function readTorchCheckpoint(path: string, budget: TorchReadBudget = torchReadBudget()): Map<string, HostTensor> {
  return parseTorchCheckpoint(readModelFile(path, 'weights', 'cannot read PyTorch checkpoint'), path, budget);
}

/** Parse torch checkpoint bytes (zip or legacy); `file` is only used in error messages. */
export function parseTorchCheckpoint(bytes: Uint8Array, file: string, budget: TorchReadBudget = torchReadBudget()): Map<string, HostTensor> {
  const fail = (reason: string): never => {
    throw new CheckpointError(file, reason);
  };
  if (looksLikeLegacyTorch(bytes)) return parseLegacyTorch(bytes, file, budget);
  if (!looksLikeZip(bytes)) {
    const tar =
      bytes.byteLength > 262 && new TextDecoder().decode(bytes.subarray(257, 262)) === 'ustar';
    if (bytes[0] === 0x80 || tar) {
      fail(
        tar
          ? 'the tar checkpoint format of torch before 0.4 is not supported: re-save it with a recent torch ' +
              '(torch.save(torch.load(f), f)) or convert it to model.safetensors'
          : 'not a PyTorch checkpoint: a pickle without the torch.save magic number (a plain pickle, or a damaged file)',
      );
    }
    // A safetensors file starts with its header length (u64 LE) and then '{"'.
    if (bytes.byteLength > 10 && bytes[8] === 0x7b && bytes[9] === 0x22) {
      fail('is a safetensors file, not a PyTorch checkpoint: rename it to model.safetensors');
    }
    fail('not a PyTorch checkpoint (expected a zip archive written by torch.save)');
  }
  const entries = readZip(bytes, file);
  const pkl = [...entries.values()].find((e) => /^[^/]+\/data\.pkl$/.test(e.name));
  if (!pkl) {
    const jit = [...entries.keys()].some((n) => /^[^/]+\/constants\.pkl$/.test(n));
    return fail(
      jit
        ? 'this is a TorchScript archive, not a state dict; save model.state_dict() instead'
        : 'no <archive>/data.pkl in the zip (not a torch.save file)',
    );
  }
  const prefix = pkl.name.slice(0, -'data.pkl'.length);
  const order = entries.get(`${prefix}byteorder`);
  // torch.save stores entries uncompressed, so they cannot outgrow the file; a compressed one
  // (a hand-made zip) could unpack a few MB into more memory than the machine has.
  const earlier = budget.unpacked; // what the shards read before this file unpacked
  const unpack = (entry: ZipEntry): Uint8Array => {
    budget.unpacked += entry.size;
    if (budget.unpacked > budget.limit) {
      const others = earlier > 0 ? `, with the ${earlier} bytes of the shards read before it` : '';
      fail(`its entries unpack to more than the ${budget.limit} bytes of weights Benchtop reads ("${entry.name}" alone declares ${entry.size}${others}); the archive is damaged or a zip bomb`);
    }
    return entry.read();
  };
  if (order && new TextDecoder().decode(unpack(order)).trim() !== 'little')
    fail('big-endian checkpoints are not supported');

  const readStorage = (ref: StorageRef): TypedArray => {
    const entry: ZipEntry | undefined = entries.get(`${prefix}data/${ref.key}`);
    if (!entry)
      return fail(`storage "${ref.key}" is missing from the archive (${prefix}data/${ref.key})`);
    const need = ref.numel * DTYPE_BYTES[ref.dtype];
    if (entry.size < need)
      fail(
        `storage "${ref.key}" has ${entry.size} bytes, needs ${need} for ${ref.numel} ${ref.dtype} elements`,
      );
    // torch.save writes each storage's bytes exactly: more bytes than its elements take is a
    // storage typed wrongly (float32 data declared float16 loaded as other numbers, no error).
    if (entry.size > need)
      fail(
        `storage "${ref.key}" has ${entry.size} bytes, but its ${ref.numel} ${ref.dtype} elements take ${need}: ` +
          'its declared type does not match its data (a damaged or hand-edited checkpoint); save the model again with save_pretrained',
      );
    return typedArrayFromBytes(unpack(entry), ref.dtype, ref.numel);
  };
  return toStateDict(unpickle(unpack(pkl), stateDictHooks(readStorage, fail, budget), file), fail);
}
