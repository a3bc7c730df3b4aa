// Raw-byte helpers for checkpoint readers/writers: element sizes, typed-array views over file
// bytes (zero-copy when aligned) and float16/bfloat16/float64 -> float32 conversion.
// Assumes a little-endian host (every platform Node ships for). Not for: tensor math.

import type { DType, HostTensor, TypedArray } from '../onnx/ir.ts';
import { numel } from '../onnx/ir.ts';

/** Bytes per element of each dtype. */
export const DTYPE_BYTES: Record<DType, number> = {
  float32: 4,
  float64: 8,
  float16: 2,
  bfloat16: 2,
  int64: 8,
  int32: 4,
  int16: 2,
  int8: 1,
  uint8: 1,
  bool: 1,
};

/** A typed array of `count` elements over `bytes` (a view when aligned, else a copy). */
export function typedArrayFromBytes(bytes: Uint8Array, dtype: DType, count: number): TypedArray {
  const size = DTYPE_BYTES[dtype];
  if (bytes.byteLength < count * size)
    throw new RangeError(`need ${count * size} bytes, have ${bytes.byteLength}`);
  let buf = bytes.buffer;
  let off = bytes.byteOffset;
  if (off % size !== 0) {
    // Copy explicitly: Buffer#slice would return a view, not a copy.
    const copy = new Uint8Array(count * size);
    copy.set(bytes.subarray(0, count * size));
    buf = copy.buffer;
    off = 0;
  }
  switch (dtype) {
    case 'float32':
      return new Float32Array(buf, off, count);
    case 'float64':
      return new Float64Array(buf, off, count);
    case 'float16':
    case 'bfloat16':
      return new Uint16Array(buf, off, count);
    case 'int64':
      return new BigInt64Array(buf, off, count);
    case 'int32':
      return new Int32Array(buf, off, count);
    case 'int16':
      return new Int16Array(buf, off, count);
    case 'int8':
      return new Int8Array(buf, off, count);
    case 'uint8':
    case 'bool':
      return new Uint8Array(buf, off, count);
  }
}

/** The bytes of a tensor's data (a view, no copy). */
export function tensorBytes(t: HostTensor): Uint8Array {
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

/** Decode one IEEE half-precision value given as raw bits. */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

let halfTable: Float32Array | undefined;

/** Whether a dtype holds floating-point values. */
export function isFloatDType(dtype: DType): boolean {
  return dtype === 'float32' || dtype === 'float64' || dtype === 'float16' || dtype === 'bfloat16';
}

/** Convert a float tensor (f16/bf16/f64/f32) to float32; a float32 input is returned as is. */
export function toFloat32(t: HostTensor): HostTensor {
  const n = numel(t.dims);
  if (t.dtype === 'float32') return t;
  const out = new Float32Array(n);
  if (t.dtype === 'float64') {
    out.set(t.data as Float64Array);
  } else if (t.dtype === 'bfloat16') {
    const src = t.data as Uint16Array;
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) bits[i] = (src[i] ?? 0) << 16;
  } else if (t.dtype === 'float16') {
    const src = t.data as Uint16Array;
    const table = (halfTable ??= Float32Array.from({ length: 65536 }, (_, h) => halfToFloat(h)));
    for (let i = 0; i < n; i++) out[i] = table[src[i] ?? 0] ?? 0;
  } else {
    throw new TypeError(`cannot convert ${t.dtype} to float32`);
  }
  return { dtype: 'float32', dims: [...t.dims], data: out };
}
