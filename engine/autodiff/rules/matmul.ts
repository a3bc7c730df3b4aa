// Gradient rule for MatMul, including the common [B, T, K] x [K, N] weight case, which is
// reduced with one GEMM over the flattened batch instead of a batched product + ReduceSum.

import type { GradRule } from '../backward.ts';

/** Y = A·B  ⇒  dA = dY·Bᵀ, dB = Aᵀ·dY (batch dims broadcast: reduce to input shape) */
export const matMul: GradRule = (g) => {
  const { b } = g;
  const dY = g.gradOut(0) as string;
  const A = g.input(0);
  const B = g.input(1);
  const aShape = b.shape(A);
  const bShape = b.shape(B);
  let dA: string | undefined;
  let dB: string | undefined;
  if (g.needs(0)) dA = g.unbroadcast(b.MatMul(dY, b.T(B)), A);
  if (g.needs(1)) {
    if (bShape.length === 2 && aShape.length > 2) {
      // A: [..., K], dY: [..., N]  ⇒  dB = A2ᵀ·dY2 with A2: [M, K], dY2: [M, N]
      const K = bShape[0] as number;
      const N = bShape[1] as number;
      const A2 = b.Reshape(A, [-1, K]);
      const dY2 = b.Reshape(dY, [-1, N]);
      // When B = Wᵀ (every Linear: W is [N, K]), the Transpose rule turns dB into dW = dBᵀ.
      // For N ≥ K, dBᵀ = dY2ᵀ·A2 is built instead: ORT cancels the two transposes, so dW comes
      // straight out of one GEMM with no [K, N] transpose after it, and MLAS's transposed-A
      // GEMM is the faster of the two forms at these shapes (the transposed operand is the
      // wider one). For N < K the A2ᵀ·dY2 form is the faster one and is kept.
      const fromTranspose = b.producer(B)?.opType === 'Transpose';
      dB = fromTranspose && N >= K
        ? b.Transpose(b.MatMul(b.Transpose(dY2, [1, 0]), A2), [1, 0])
        : b.MatMul(b.Transpose(A2, [1, 0]), dY2); // [K, N]
    } else {
      dB = g.unbroadcast(b.MatMul(b.T(A), dY), B);
    }
  }
  return [dA, dB];
};
