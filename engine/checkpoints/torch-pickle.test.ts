// Tests for the torch zip checkpoint reader: golden .bin vs safetensors bitwise, crafted pickles
// (strides, offsets, shared storages, dtypes), and refusal of malicious or corrupt pickles.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { CheckpointError } from './errors.ts';
import { readSafetensors } from './safetensors.ts';
import { Pickle, torchArchive } from './test-helpers.ts';
import { parseTorchCheckpoint, readTorchCheckpoint } from './torch-pickle.ts';

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');
const MODELS = ['bert', 'distilbert'].flatMap((a) =>
  ['token-classification', 'sequence-classification', 'masked-lm'].map((t) => `${a}-${t}`),
);

const archive = torchArchive;

const values = (t: HostTensor | undefined): number[] =>
  Array.from((t?.data ?? []) as ArrayLike<number | bigint>, (v) => Number(v));

const f32bytes = (values: number[]): Uint8Array => new Uint8Array(Float32Array.from(values).buffer);

function thrown(fn: () => unknown): CheckpointError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return e as CheckpointError;
  }
  throw new Error('expected a CheckpointError');
}

function sameBytes(a: HostTensor, b: HostTensor): boolean {
  const x = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  return x.equals(Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength));
}

describe('torch zip checkpoints: goldens', () => {
  it.each(MODELS)('%s: pytorch_model.bin equals model.safetensors bitwise', (model) => {
    const dir = path.join(GOLDENS, model);
    const bin = readTorchCheckpoint(path.join(dir, 'pytorch_model.bin'));
    const st = readSafetensors(path.join(dir, 'model.safetensors')).tensors;
    const info = JSON.parse(readFileSync(path.join(dir, 'goldens.json'), 'utf8')) as {
      model_safetensors_keys_dropped_as_tied: string[];
      tied_state_dict_groups: string[][];
    };
    const dropped = info.model_safetensors_keys_dropped_as_tied;
    expect([...bin.keys()].sort()).toEqual([...st.keys(), ...dropped].sort());
    for (const [name, t] of st) {
      const b = bin.get(name) as HostTensor;
      expect(b.dtype, name).toBe(t.dtype);
      expect(b.dims, name).toEqual(t.dims);
      expect(sameBytes(b, t), name).toBe(true);
    }
    // Tied names share one storage in the .bin file.
    for (const group of info.tied_state_dict_groups) {
      const [first, ...rest] = group.map((n) => bin.get(n) as HostTensor);
      for (const t of rest) {
        expect(t.data.buffer).toBe(first?.data.buffer);
        expect(t.data.byteOffset).toBe(first?.data.byteOffset);
      }
    }
  });
});

describe('torch zip checkpoints: crafted', () => {
  it('handles offsets, strides, shared storages, dtypes, parameters and any top folder', () => {
    const pkl = new Pickle()
      .global('collections', 'OrderedDict')
      .op(0x29, 0x52) // OrderedDict()
      .op(0x28)
      .str('w')
      .tensor({
        storage: 'FloatStorage',
        key: '0',
        numel: 8,
        offset: 2,
        size: [2, 3],
        stride: [3, 1],
      })
      .str('wt')
      .tensor({
        storage: 'FloatStorage',
        key: '0',
        numel: 8,
        offset: 2,
        size: [3, 2],
        stride: [1, 3],
      })
      .str('p')
      .tensor({
        storage: 'FloatStorage',
        key: '0',
        numel: 8,
        offset: 0,
        size: [2],
        stride: [1],
        param: true,
      })
      .str('h')
      .tensor({ storage: 'HalfStorage', key: '1', numel: 2, offset: 0, size: [2], stride: [1] })
      .str('l')
      .tensor({ storage: 'LongStorage', key: '2', numel: 1, offset: 0, size: [], stride: [] })
      .str('b')
      .tensor({
        storage: 'BoolStorage',
        key: '3',
        numel: 2,
        offset: 0,
        size: [2, 1],
        stride: [1, 1],
      })
      .op(0x75) // SETITEMS
      .op(0x7d)
      .str('version')
      .op(0x4b, 1, 0x73, 0x62) // BUILD with {'version': 1}
      .bytes();
    const storages = {
      '0': f32bytes([0, 1, 10, 11, 12, 20, 21, 22]),
      '1': Uint8Array.from([0x00, 0x3c, 0x00, 0xc0]),
      '2': new Uint8Array(BigInt64Array.from([-3n]).buffer),
      '3': Uint8Array.from([1, 0]),
    };
    for (const level of [0, 6] as const) {
      const sd = parseTorchCheckpoint(archive(pkl, storages, 'my_model-v2', level), 'x.bin');
      expect(values(sd.get('w'))).toEqual([10, 11, 12, 20, 21, 22]);
      expect(values(sd.get('wt'))).toEqual([10, 20, 11, 21, 12, 22]);
      expect(sd.get('wt')?.dims).toEqual([3, 2]);
      expect(values(sd.get('p'))).toEqual([0, 1]);
      expect(sd.get('h')).toMatchObject({ dtype: 'float16', dims: [2] });
      expect(values(sd.get('h'))).toEqual([0x3c00, 0xc000]);
      expect(sd.get('l')).toMatchObject({ dtype: 'int64', dims: [] });
      expect(sd.get('l')?.data[0]).toBe(-3n);
      expect(sd.get('b')).toMatchObject({ dtype: 'bool', dims: [2, 1] });
      expect(sd.get('w')?.data.buffer).toBe(sd.get('p')?.data.buffer);
    }
  });

  it('refuses malicious globals without executing them', () => {
    const cases: [Uint8Array, string][] = [
      [
        new Pickle().global('os', 'system').str('touch /tmp/pwned').op(0x85, 0x52).bytes(),
        'os.system',
      ],
      [new Pickle().global('posix', 'system').str('id').op(0x85, 0x52).bytes(), 'posix.system'],
      [
        new Pickle().str('builtins').str('eval').op(0x93).str('1+1').op(0x85, 0x52).bytes(),
        'builtins.eval',
      ],
      [
        new Pickle().op(0x7d).str('x').global('subprocess', 'Popen').op(0x73).bytes(),
        'subprocess.Popen',
      ],
      [new Pickle().global('torch', 'load').bytes(), 'torch.load'],
    ];
    for (const [pkl, name] of cases) {
      const err = thrown(() => parseTorchCheckpoint(archive(pkl, {}), '/m/pytorch_model.bin'));
      expect(err.file).toBe('/m/pytorch_model.bin');
      expect(err.message).toBe(
        `/m/pytorch_model.bin: refuses to load pickle global "${name}": only tensor storage is allowed`,
      );
    }
  });

  it('refuses calling allowed names other than the rebuild functions, and object opcodes', () => {
    const callStorage = new Pickle().global('torch', 'FloatStorage').op(0x29, 0x52).bytes();
    expect(thrown(() => parseTorchCheckpoint(archive(callStorage, {}), 'f.bin')).message).toMatch(
      /f\.bin: refuses to call/,
    );
    const newobj = new Pickle().global('collections', 'OrderedDict').op(0x29, 0x81).bytes();
    expect(thrown(() => parseTorchCheckpoint(archive(newobj, {}), 'f.bin')).message).toMatch(
      /f\.bin: .*refused opcode NEWOBJ/,
    );
    const badPid = new Pickle().str('http://x').op(0x51).bytes();
    expect(thrown(() => parseTorchCheckpoint(archive(badPid, {}), 'f.bin')).message).toMatch(
      /unsupported persistent id/,
    );
  });

  it('rejects corrupt and truncated pickles', () => {
    const good = new Pickle()
      .op(0x7d)
      .str('w')
      .tensor({ storage: 'FloatStorage', key: '0', numel: 2, offset: 0, size: [2], stride: [1] })
      .op(0x73)
      .bytes();
    const storages = { '0': f32bytes([1, 2]) };
    expect(parseTorchCheckpoint(archive(good, storages), 'ok.bin').size).toBe(1);
    const cut = thrown(() =>
      parseTorchCheckpoint(archive(good.subarray(0, 40), storages), '/m/p.bin'),
    );
    expect(cut.message).toMatch(
      /^\/m\/p\.bin: corrupt or unsupported pickle: truncated (text argument )?at byte \d+/,
    );
    const junk = Uint8Array.from([0x80, 0x02, 0xff, 0x2e]);
    expect(thrown(() => parseTorchCheckpoint(archive(junk, {}), '/m/p.bin')).message).toMatch(
      /\/m\/p\.bin: .*unknown opcode 0xff at byte 2/,
    );
    const noStop = new Pickle().op(0x7d).bytes().subarray(0, 3);
    expect(thrown(() => parseTorchCheckpoint(archive(noStop, {}), 'p.bin')).message).toMatch(
      /truncated/,
    );
    // A string length past the end is a truncation (it was reported as bad UTF-8 at a negative byte).
    const longStr = new Pickle().op(0x58, 0xf0, 0xff, 0xff, 0xff).text('abc.').bytes();
    expect(thrown(() => parseTorchCheckpoint(archive(longStr, {}), 'p.bin')).message).toBe(
      `p.bin: corrupt or unsupported pickle: truncated at byte 7 (needs ${0xfffffff0} more bytes)`,
    );
    const notDict = new Pickle().int(5).bytes();
    expect(thrown(() => parseTorchCheckpoint(archive(notDict, {}), 'p.bin')).message).toMatch(
      /top-level object is 5, expected a state dict/,
    );
  });

  it('refuses a storage described twice with another dtype or size', () => {
    const two = (second: { storage: string; numel: number; size: number[] }): Uint8Array =>
      new Pickle()
        .op(0x7d)
        .str('a')
        .tensor({ storage: 'FloatStorage', key: '0', numel: 2, offset: 0, size: [2], stride: [1] })
        .op(0x73)
        .str('b')
        .tensor({ ...second, key: '0', offset: 0, stride: [1] })
        .op(0x73)
        .bytes();
    const storages = { '0': f32bytes([1, 2]) };
    const shared = parseTorchCheckpoint(archive(two({ storage: 'FloatStorage', numel: 2, size: [1] }), storages), 'p.bin');
    expect(shared.get('b')?.data.buffer).toBe(shared.get('a')?.data.buffer);
    expect(thrown(() => parseTorchCheckpoint(archive(two({ storage: 'HalfStorage', numel: 4, size: [4] }), storages), 'p.bin')).message).toBe(
      'p.bin: storage "0" is described twice differently (2 float32, then 4 float16)',
    );
    // A larger size would have given a 4-element tensor only 2 elements of data.
    expect(thrown(() => parseTorchCheckpoint(archive(two({ storage: 'FloatStorage', numel: 4, size: [4] }), storages), 'p.bin')).message).toMatch(
      /storage "0" is described twice differently \(2 float32, then 4 float32\)/,
    );
  });

  it('refuses a zero-stride view that would expand past the weights limit, before allocating it', () => {
    const pkl = (size: number[]): Uint8Array =>
      new Pickle()
        .op(0x7d)
        .str('w')
        .tensor({ storage: 'FloatStorage', key: '0', numel: 1, offset: 0, size, stride: size.map(() => 0) })
        .op(0x73)
        .bytes();
    const storages = { '0': f32bytes([7]) };
    const small = parseTorchCheckpoint(archive(pkl([2, 3]), storages), 'p.bin').get('w');
    expect(Array.from(small?.data as Float32Array)).toEqual([7, 7, 7, 7, 7, 7]);
    expect(thrown(() => parseTorchCheckpoint(archive(pkl([100000, 100000]), storages), 'p.bin')).message).toMatch(
      /^p\.bin: tensor \[100000, 100000\] at offset 0 in storage "0" \(1 elements\) with strides \[0, 0\] would expand to more than the 2147483647 bytes/,
    );
  });

  it('rejects tensors outside their storage and missing storages', () => {
    const pkl = (numel: number, size: number): Uint8Array =>
      new Pickle()
        .op(0x7d)
        .str('w')
        .tensor({ storage: 'FloatStorage', key: '0', numel, offset: 1, size: [size], stride: [1] })
        .op(0x73)
        .bytes();
    expect(
      thrown(() => parseTorchCheckpoint(archive(pkl(2, 2), { '0': f32bytes([1, 2]) }), 'p.bin'))
        .message,
    ).toMatch(/tensor \[2\] at offset 1 in storage "0" \(2 elements\) reads past the end/);
    expect(
      thrown(() => parseTorchCheckpoint(archive(pkl(4, 2), { '0': f32bytes([1, 2]) }), 'p.bin'))
        .message,
    ).toMatch(/storage "0" has 8 bytes, needs 16/);
    expect(thrown(() => parseTorchCheckpoint(archive(pkl(2, 1), {}), 'p.bin')).message).toMatch(
      /storage "0" is missing/,
    );
  });

  it('refuses a storage whose declared dtype does not match its bytes (float32 data typed as float16)', () => {
    // Loaded, the four float32 bytes of 1.0 read as the float16 pair [0, 1.875]: finite, wrong.
    const pkl = new Pickle()
      .op(0x7d)
      .str('w')
      .tensor({ storage: 'HalfStorage', key: '0', numel: 2, offset: 0, size: [2], stride: [1] })
      .op(0x73)
      .bytes();
    expect(thrown(() => parseTorchCheckpoint(archive(pkl, { '0': f32bytes([1, 1]) }), 'p.bin')).message).toBe(
      'p.bin: storage "0" has 8 bytes, but its 2 float16 elements take 4: its declared type does not match its data ' +
        '(a damaged or hand-edited checkpoint); save the model again with save_pretrained',
    );
  });

  it('refuses compressed storages that would unpack past 2 GB (a zip bomb) before inflating them', () => {
    const numel = 2 ** 29; // 2 GB of float32, one byte more than the weights Benchtop reads
    const pkl = new Pickle()
      .global('collections', 'OrderedDict')
      .op(0x29, 0x52, 0x28)
      .str('w')
      .tensor({ storage: 'FloatStorage', key: '0', numel, offset: 0, size: [numel], stride: [1] })
      .op(0x75)
      .bytes();
    const zip = archive(pkl, { '0': new Uint8Array(4096) }, 'archive', 6);
    // Declare the 4 KB of zeros as 2 GB in the central directory, as a bomb's would be.
    const dv = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let p = 0; p + 46 < zip.byteLength; p++) {
      if (dv.getUint32(p, true) !== 0x02014b50) continue;
      const name = new TextDecoder().decode(zip.subarray(p + 46, p + 46 + dv.getUint16(p + 28, true)));
      if (name === 'archive/data/0') dv.setUint32(p + 24, numel * 4, true);
    }
    // The pickle itself declared as 2 GB: refused as well, before it is inflated.
    const bomb = archive(new Uint8Array(4096), {}, 'archive', 6);
    const bv = new DataView(bomb.buffer, bomb.byteOffset, bomb.byteLength);
    for (let p = 0; p + 46 < bomb.byteLength; p++) if (bv.getUint32(p, true) === 0x02014b50 && bv.getUint16(p + 28, true) === 16) bv.setUint32(p + 24, 2 ** 31, true);
    expect(thrown(() => parseTorchCheckpoint(bomb, 'p.bin')).message).toMatch(/^p\.bin: its entries unpack to more than .*\("archive\/data\.pkl" alone declares 2147483648\)/);
    expect(thrown(() => parseTorchCheckpoint(zip, 'b.bin')).message).toBe(
      'b.bin: its entries unpack to more than the 2147483647 bytes of weights Benchtop reads ("archive/data/0" alone declares 2147483648); the archive is damaged or a zip bomb',
    );
  });

  it('rejects truncated archives, legacy and non-torch files with a clear message', () => {
    const file = path.join(GOLDENS, 'bert-token-classification/pytorch_model.bin');
    const bytes = readFileSync(file);
    const cut = thrown(() =>
      parseTorchCheckpoint(bytes.subarray(0, bytes.byteLength >> 1), '/m/pytorch_model.bin'),
    );
    expect(cut.message).toMatch(/^\/m\/pytorch_model\.bin: invalid zip archive: .*truncated/);
    const cut2 = thrown(() =>
      parseTorchCheckpoint(bytes.subarray(0, bytes.byteLength - 30), 'p.bin'),
    );
    expect(cut2.message).toMatch(/truncated/);
    const legacy = Uint8Array.from([
      0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e,
    ]);
    expect(thrown(() => parseTorchCheckpoint(legacy, 'old.bin')).message).toMatch(
      /^old\.bin: legacy PyTorch checkpoint: corrupt or unsupported pickle: truncated at byte 15/,
    );
    expect(
      thrown(() => parseTorchCheckpoint(new TextEncoder().encode('hello'), 'h.bin')).message,
    ).toMatch(/not a PyTorch checkpoint/);
    // Weights saved under the other format's name: say which file it is.
    const st = readFileSync(path.join(GOLDENS, 'bert-token-classification/model.safetensors'));
    expect(thrown(() => parseTorchCheckpoint(st, 'w.bin')).message).toBe(
      'w.bin: is a safetensors file, not a PyTorch checkpoint: rename it to model.safetensors',
    );
    // Bytes flipped inside a tensor's storage (a damaged copy): torch.load takes them as numbers.
    const damaged = Uint8Array.from(bytes);
    for (let i = bytes.byteLength >> 1; i < (bytes.byteLength >> 1) + 64; i++) damaged[i] = (damaged[i] as number) ^ 0xff;
    expect(thrown(() => parseTorchCheckpoint(damaged, 'd.bin')).message).toMatch(
      /^d\.bin: invalid zip archive: "pytorch_model\/data\/\d+" is damaged \(its CRC-32 checksum does not match\): copy or download the file again$/,
    );
    const noPkl = zipSync({ 'a/b.txt': new Uint8Array(1) });
    expect(thrown(() => parseTorchCheckpoint(noPkl, 'z.bin')).message).toMatch(
      /no <archive>\/data\.pkl/,
    );
    expect(() => readTorchCheckpoint('/nonexistent/pytorch_model.bin')).toThrow(
      /\/nonexistent\/pytorch_model\.bin: cannot read/,
    );
  });
});
