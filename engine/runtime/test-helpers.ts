// For tests: runs a standalone model.onnx (an export) on a Hugging Face golden's inputs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostTensor } from '../onnx/ir.ts';
import { Session } from './session.ts';

/** Logits of the standalone ONNX model `file` on the inputs of the golden in `goldenDir`. */
export async function goldenOnnxLogits(goldenDir: string, file: string): Promise<HostTensor> {
  const meta = JSON.parse(readFileSync(join(goldenDir, 'goldens.json'), 'utf8')) as {
    inputs: Record<'input_ids' | 'attention_mask' | 'token_type_ids', number[][]>;
  };
  const tensor = (rows: number[][]): HostTensor => ({
    dtype: 'int64',
    dims: [rows.length, rows[0]!.length],
    data: BigInt64Array.from(rows.flat().map(BigInt)),
  });
  const session = await Session.create(readFileSync(file));
  try {
    const out = await session.run({
      input_ids: tensor(meta.inputs.input_ids),
      attention_mask: tensor(meta.inputs.attention_mask),
      token_type_ids: tensor(meta.inputs.token_type_ids),
    });
    return out['logits']!;
  } finally {
    await session.release();
  }
}
