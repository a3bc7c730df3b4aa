// forward and export-onnx refuse an existing --out file unless --overwrite, as predict does; a
// --lr out of range is a usage mistake (exit 2), as a --lr that is no number.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-out-flags-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    return { code: await main(args), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe.skipIf(!existsSync(GOLDEN))('forward and export-onnx: an existing --out', () => {
  it('is refused without --overwrite, in predict\'s words, and replaced with it', async () => {
    const inputs = path.join(tmp, 'in.json');
    writeFileSync(inputs, JSON.stringify({ input_ids: [[2, 5, 3]] }));
    for (const [name, args] of [
      ['out.json', ['forward', '--model', GOLDEN, '--inputs', inputs]],
      ['model.onnx', ['export-onnx', '--model', GOLDEN]],
    ] as [string, string[]][]) {
      const out = path.join(tmp, name);
      writeFileSync(out, 'results of an earlier run\n');
      const r = await run([...args, '--out', out]);
      expect(r.err).toBe(`benchtop: error: ${out}: already exists; choose another file name, or pass --overwrite to replace it`);
      expect(r.code).toBe(1);
      expect(readFileSync(out, 'utf8')).toBe('results of an earlier run\n');
      expect(await run([...args, '--out', out, '--overwrite'])).toEqual({ code: 0, err: '' });
      expect(readFileSync(out).length).toBeGreaterThan(100);
    }
  });
});

describe('--lr out of range', () => {
  it('is a usage mistake (exit 2) for every command that takes it, refused before any work', async () => {
    const missing = path.join(tmp, 'none');
    for (const args of [
      ['train', 'ner', '--preset', 'small-2L-128', '--train', missing, '--out', path.join(tmp, 'o1')],
      ['distill', '--task', 'ner', '--teacher', missing, '--student-preset', 'small-2L-128', '--transfer', missing, '--out', path.join(tmp, 'o2')],
      ['pretrain', '--preset', 'small-2L-128', '--text', missing, '--out', path.join(tmp, 'o3')],
      ['distill-general', '--teacher', missing, '--student-preset', 'small-2L-128', '--recipe', 'tinybert', '--text', missing, '--out', path.join(tmp, 'o4')],
    ]) {
      for (const lr of ['0', '2', '1e3', '-1e-4']) {
        const r = await run([...args, `--lr=${lr}`]);
        expect(r.err, `${args[0]} --lr ${lr}`).toBe(`benchtop: error: --lr must be a number > 0 and ≤ 1, got ${Number(lr)}`);
        expect(r.code).toBe(2);
      }
      expect((await run([...args, '--lr', 'abc'])).code).toBe(2);
    }
  });
});
