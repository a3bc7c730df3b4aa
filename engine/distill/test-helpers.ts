// Test-only helpers for the distillation tests. Not used by the product.
import { fingerprintBytes } from './fingerprint-file.ts';

/**
 * A fingerprint file of `texts` as written before sentence hashes were kept (version 1, before
 * 2026-11-24): version 2 less the sentences (the magic, three counts, the runs' counts, the hashes).
 */
export function fingerprintBytesV1(texts: readonly string[]): Buffer {
  const v2 = fingerprintBytes(texts);
  const [docs, wholes, runs] = [0, 1, 2].map((i) => v2.readUInt32LE(8 + 4 * i)) as [number, number, number];
  const hashesAt = 24 + 8 * docs;
  return Buffer.concat([Buffer.from('BTFPRNT1', 'latin1'), v2.subarray(8, 20), v2.subarray(24, 24 + 4 * docs), v2.subarray(hashesAt, hashesAt + 8 * (wholes + runs))]);
}
