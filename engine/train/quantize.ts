// Int8 inference: the encoder's linear layers (Q, K, V, attention output, both feed-forward
// layers) as com.microsoft DynamicQuantizeMatMul with weights quantized once per output column
// and activations quantized per tensor at run time. MLAS runs these on the CPU's integer dot-
// product units (AVX-VNNI / AVX512-VNNI / AMX where present). Embeddings, LayerNorm, softmax,
// the pooler and the classifier stay float32. Inference only; training is always float32.

import type { GraphBuilder } from '../onnx/builder.ts';
import type { HostTensor } from '../onnx/ir.ts';

/**
 * Weights use 7 bits (−63…63), not 8: x86 CPUs without VNNI multiply u8·s8 pairs with a
 * saturating 16-bit add, which full-range int8 weights can overflow; 7-bit weights cannot, so
 * results do not depend on which CPU runs them.
 */
export const INT8_WEIGHT_MAX = 63;

/** Whether a linear layer (HF name without `.weight`) is quantized: the encoder layers' only. */
export function isQuantizedLinear(name: string): boolean {
  return /\.(encoder\.layer|transformer\.layer|encoder\.albert_layer_groups)\.\d+\./.test(name);
}

/** Per-output-column symmetric quantization of an HF Linear weight [O, C] → int8 [C, O] + scales [O]. */
export function quantizeLinearWeight(w: HostTensor): { q: Int8Array; scale: Float32Array; rows: number; cols: number } {
  const [O, C] = w.dims as [number, number];
  const data = w.data as Float32Array;
  const scale = new Float32Array(O);
  const q = new Int8Array(C * O);
  for (let o = 0; o < O; o++) {
    let max = 0;
    for (let c = 0; c < C; c++) max = Math.max(max, Math.abs(data[o * C + c] as number));
    const s = max > 0 ? max / INT8_WEIGHT_MAX : 1;
    scale[o] = s;
    for (let c = 0; c < C; c++) q[c * O + o] = Math.round((data[o * C + c] as number) / s);
  }
  return { q, scale, rows: C, cols: O };
}

/** A `ForwardOptions.linear` that quantizes the encoder's linear layers from `weights`. */
export function int8Linear(weights: ReadonlyMap<string, HostTensor>): (b: GraphBuilder, x: string, name: string) => string | undefined {
  // ALBERT runs one shared layer several times: its weights are quantized once.
  const done = new Map<string, { qw: string; sc: string; zp: string; cols: number }>();
  return (b, x, name) => {
    if (!isQuantizedLinear(name)) return undefined;
    let made = done.get(name);
    if (!made) {
      const w = weights.get(`${name}.weight`);
      if (!w) throw new Error(`missing parameter "${name}.weight"`);
      const { q, scale, rows, cols } = quantizeLinearWeight(w);
      made = {
        qw: b.initializer(`${name}.weight_int8`, { dtype: 'int8', dims: [rows, cols], data: q }),
        sc: b.initializer(`${name}.weight_scale`, { dtype: 'float32', dims: [cols], data: scale }),
        zp: b.initializer(`${name}.weight_zero_point`, { dtype: 'int8', dims: [cols], data: new Int8Array(cols) }),
        cols,
      };
      done.set(name, made);
    }
    const { qw, sc, zp, cols } = made;
    const shape = [...b.shape(x).slice(0, -1), cols];
    return b.op('DynamicQuantizeMatMul', [x, qw, sc, zp, `${name}.bias`], {}, { domain: 'com.microsoft', outputInfos: [{ dtype: 'float32', shape }] })[0];
  };
}
