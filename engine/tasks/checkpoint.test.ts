// Checkpoint writes that fail leave either nothing (first save) or the previous checkpoint.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostTensor } from '../onnx/ir.ts';
import { DamagedCheckpointError, hasCheckpoint, loadCheckpoint, saveCheckpoint, type LoopState } from './checkpoint.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-ckpt-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const tensor = (values: number[]): HostTensor => ({ dtype: 'float32', dims: [values.length], data: Float32Array.from(values) });
const state = (step: number): Omit<LoopState, 'tensors'> => ({
  version: 1, fingerprint: 'fp', step, epoch: 0, batchInEpoch: step, epochSeed: 1, bestF1: 0, bestStep: 0, badEvals: 0, history: [], losses: [], wallSec: 0,
});
const tensors = (w: number): { weights: Map<string, HostTensor>; m: Map<string, HostTensor>; v: Map<string, HostTensor> } => ({
  weights: new Map([['a', tensor([w, w + 1])]]), m: new Map([['a', tensor([0.1, 0.2])]]), v: new Map([['a', tensor([0.3, 0.4])]]),
});

describe('saveCheckpoint on failure', () => {
  it('leaves no folder behind when the first checkpoint cannot be written', () => {
    const dir = path.join(tmp, 'first', 'checkpoint');
    const bad = tensors(1);
    bad.m.set('a', { dtype: 'float32', dims: [3], data: new Float32Array(2) }); // fails while writing
    expect(() => saveCheckpoint(dir, state(1), bad)).toThrow(/data bytes/);
    expect(existsSync(dir)).toBe(false);
  });

  it('keeps the previous checkpoint when a later one cannot be written', () => {
    const dir = path.join(tmp, 'later', 'checkpoint');
    saveCheckpoint(dir, state(1), tensors(1));
    // A folder where the step-2 temp file must go: opening it for writing fails (EISDIR).
    mkdirSync(path.join(dir, `optimizer-step2.safetensors.tmp-${process.pid}`));
    expect(() => saveCheckpoint(dir, state(2), tensors(2))).toThrow();
    expect(hasCheckpoint(dir)).toBe(true);
    const back = loadCheckpoint(dir, 'fp');
    expect(back.state.step).toBe(1);
    expect([...(back.tensors.weights.get('a')?.data as Float32Array)]).toEqual([1, 2]);
    expect(readdirSync(dir).filter((f) => f.startsWith('optimizer-step1'))).toEqual(['optimizer-step1.safetensors']);
  });
});

describe('loadCheckpoint', () => {
  it('refuses a checkpoint whose tensor bytes were damaged after saving, saying how to start over', () => {
    const dir = path.join(tmp, 'damaged', 'checkpoint');
    saveCheckpoint(dir, state(3), tensors(5));
    const file = path.join(dir, 'optimizer-step3.safetensors');
    const bytes = readFileSync(file);
    bytes[bytes.byteLength - 1] = (bytes[bytes.byteLength - 1] as number) ^ 0x10; // a second moment, still a float
    writeFileSync(file, bytes);
    expect(() => loadCheckpoint(dir, 'fp')).toThrow(
      `${file}: invalid safetensors file: the weights do not match the SHA-256 checksum`,
    );
    expect(() => loadCheckpoint(dir, 'fp')).toThrow(/; this checkpoint cannot be resumed, so start the run over \(--no-resume on the command line, Start again in the workbench\)$/);
    writeFileSync(path.join(dir, 'state.json'), '{"version": 1, "step');
    expect(() => loadCheckpoint(dir, 'fp')).toThrow(DamagedCheckpointError);
  });

  it('refuses a state.json that parses but is not a checkpoint state, naming it, before anything else reads it', () => {
    const dir = path.join(tmp, 'shape', 'checkpoint');
    saveCheckpoint(dir, state(4), tensors(2));
    const file = path.join(dir, 'state.json');
    const good = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(loadCheckpoint(dir, 'fp').state.step).toBe(4);
    const damaged: [string, unknown][] = [
      ['null', null],
      ['a list', []],
      ['no tensors', { ...good, tensors: undefined }],
      ['tensors elsewhere', { ...good, tensors: '../../optimizer-step4.safetensors' }],
      // A changed digit: it would resume at step 14 with the tensors of step 4.
      ['another step', { ...good, step: 14 }],
      ['a step in words', { ...good, step: 'four', tensors: 'optimizer-stepfour.safetensors' }],
      ['losses lost', { ...good, losses: null }],
      ['a bad stop reason', { ...good, finished: 'done' }],
    ];
    for (const [what, value] of damaged) {
      writeFileSync(file, JSON.stringify(value));
      let error: unknown;
      try {
        loadCheckpoint(dir, 'fp');
      } catch (e) {
        error = e;
      }
      expect(error, what).toBeInstanceOf(DamagedCheckpointError);
      expect((error as Error).message, what).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a checkpoint state \\(.+\\); this checkpoint cannot be resumed`));
    }
    // Another version is said to be unsupported, not damaged.
    writeFileSync(file, JSON.stringify({ ...good, version: 2 }));
    expect(() => loadCheckpoint(dir, 'fp')).toThrow(`${file}: checkpoint version 2 is not supported`);
  });
});
