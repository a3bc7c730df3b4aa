// `benchtop train` as real processes (the launcher and its engine child), stopped the way a
// terminal stops it: Ctrl-C signals the whole process group, so the engine gets the signal twice
// (from the terminal and forwarded by the launcher). One press must stop the run after its step,
// keeping the checkpoint; taken as two, it quit at once and saved nothing (by hand, every time;
// here only when the two copies are not merged by the kernel, so stop-signals.test.ts pins it).
// Closing the terminal (SIGHUP) used to end the run where it stood.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pubtatorSubset } from '../tasks/test-helpers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TRAIN = join(ROOT, '../shared/data/documents/pubtator-ncbi/NCBItrainset_corpus.txt');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs a training command in its own process group, signals the group once its steps show. */
function trainStoppedBy(signal: NodeJS.Signals): Promise<{ code: number | null; out: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bt-stop-'));
  dirs.push(dir);
  const out = join(dir, 'out');
  // 40 abstracts: 90 steps an epoch, far more than run before the signal; the whole set only took longer to read.
  const train = pubtatorSubset(TRAIN, 40, dir, 'train.txt');
  const args = ['bin/benchtop.js', 'train', 'ner', '--model', 'resources/models/default-student', '--train', train, '--epochs', '2', '--batch-size', '4', '--out', out];
  const child = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let isSignalled = false;
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (!isSignalled && /epoch 1 \[.*\] [1-9]\d*\//.test(stderr)) {
      isSignalled = true;
      process.kill(-child.pid!, signal); // the launcher and the engine, as a terminal does
    }
  });
  return new Promise((done) => child.on('exit', (code) => done({ code, out, stderr })));
}

describe('a training run stopped from its terminal', () => {
  it('keeps its checkpoint on one Ctrl-C, though the signal reaches the engine twice', async () => {
    const r = await trainStoppedBy('SIGINT');
    expect(r.stderr).toContain('stopping after this step, keeping a checkpoint');
    expect(r.code).toBe(130);
    expect(existsSync(join(r.out, 'checkpoint'))).toBe(true);
  }, 120_000);

  it('keeps its checkpoint when the terminal closes (SIGHUP)', async () => {
    const r = await trainStoppedBy('SIGHUP');
    expect(r.code).toBe(130);
    expect(existsSync(join(r.out, 'checkpoint'))).toBe(true);
  }, 120_000);
});
