// Ctrl-C, SIGTERM or SIGHUP during `forward`, `export-onnx` or `init-model`: the command stops,
// writes nothing and leaves no hidden temporary file beside its output (before, the signal ended
// the process mid-write and a `.OUT.PID.tmp` file or `.OUT.tmp-…` folder stayed behind, 435 MB
// for a BERT-base export), and exits with 130.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CancelledError } from '../tasks/batching.ts';
import { runCli } from './test-helpers.ts';
import { writeFileAtomicStoppable } from './stoppable-write.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const VOCAB = path.resolve(import.meta.dirname, '../../../shared/goldens/vocab/tiny-uncased-vocab.txt');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-stop-write-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `benchtop ARGS` with a stop signal arriving on the first turn of the event loop after it starts. */
async function stoppedRun(args: string[], signal: NodeJS.Signals): Promise<{ code: number; errors: string; output: string }> {
  setImmediate(() => process.emit(signal, signal));
  return runCli(args);
}

describe.skipIf(!existsSync(GOLDEN))('a stop signal during a command that writes one output', () => {
  it('export-onnx writes nothing, leaves no temp file and exits with 130', async () => {
    const dir = mkdtempSync(path.join(tmp, 'onnx-'));
    const r = await stoppedRun(['export-onnx', '--model', GOLDEN, '--out', path.join(dir, 'model.onnx')], 'SIGINT');
    expect(r.code).toBe(130);
    expect(r.errors).toBe('benchtop: stopped; nothing was written');
    expect(r.output).toContain('stopping; nothing will be written (Ctrl-C again to quit at once)');
    expect(readdirSync(dir)).toEqual([]);
    expect(process.listenerCount('SIGINT')).toBe(0);
    // Not stopped, it writes the file as before.
    const done = await runCli(['export-onnx', '--model', GOLDEN, '--out', path.join(dir, 'model.onnx')]);
    expect(done.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['model.onnx']);
  });

  it('forward --grads (SIGTERM) writes nothing and keeps an existing --out with --overwrite', async () => {
    const dir = mkdtempSync(path.join(tmp, 'forward-'));
    const inFile = path.join(dir, 'in.json');
    const outFile = path.join(dir, 'out.json');
    writeFileSync(inFile, JSON.stringify({ input_ids: [[2, 15, 27, 3]], labels: [[0, 1, 2, 0]] }));
    writeFileSync(outFile, 'earlier output');
    const r = await stoppedRun(['forward', '--model', GOLDEN, '--inputs', inFile, '--out', outFile, '--grads', '--overwrite'], 'SIGTERM');
    expect(r.code).toBe(130);
    expect(r.errors).toBe('benchtop: stopped; nothing was written');
    expect(readdirSync(dir).sort()).toEqual(['in.json', 'out.json']);
    expect(readFileSync(outFile, 'utf8')).toBe('earlier output');
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('init-model stopped before saving writes no folder', async () => {
    const dir = mkdtempSync(path.join(tmp, 'init-'));
    const out = path.join(dir, 'model');
    const r = await stoppedRun(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--vocab', VOCAB, '--labels', 'O,B-X,I-X', '--out', out], 'SIGINT');
    expect(r.code).toBe(130);
    expect(r.errors).toBe('benchtop: stopped; nothing was written');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('writeFileAtomicStoppable', () => {
  it('stopped between pieces, removes its temp file and leaves the target as it was', async () => {
    const dir = mkdtempSync(path.join(tmp, 'pieces-'));
    const file = path.join(dir, 'big.bin');
    writeFileSync(file, 'old');
    const stop = { cancelled: false };
    const exitListeners = process.listenerCount('exit');
    let seenTemp: string[] = [];
    function* pieces(): Generator<Uint8Array> {
      yield new Uint8Array(8 * 1024 * 1024);
      seenTemp = readdirSync(dir).filter((n) => n !== 'big.bin');
      stop.cancelled = true; // as the handler of the stop signal does
      yield new Uint8Array(8 * 1024 * 1024);
      throw new Error('written on after the stop');
    }
    await expect(writeFileAtomicStoppable(file, pieces(), stop)).rejects.toBeInstanceOf(CancelledError);
    expect(seenTemp).toEqual([`.big.bin.${process.pid}.tmp`]);
    expect(readdirSync(dir)).toEqual(['big.bin']);
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(process.listenerCount('exit')).toBe(exitListeners);
  });
});
