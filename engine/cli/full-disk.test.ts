// A real full disk: a 10 MB tmpfs mounted in a user namespace (Linux, where unprivileged user
// namespaces are allowed), with `benchtop train` writing its checkpoint there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DATA = path.resolve(ROOT, '../shared/data/ner/ncbi-disease/devel.tsv');
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
const why = canMount ? '' : ' (skipped: needs Linux with unprivileged user namespaces, `unshare -rm`)';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-full-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.runIf(canMount && existsSync(DATA))(`a full disk during training${why}`, () => {
  it('names the file, exits 1 and leaves no output folder behind', () => {
    const train = path.join(tmp, 'train.tsv');
    writeFileSync(train, readFileSync(DATA, 'utf8').split('\n').slice(0, 3000).join('\n'));
    const mnt = path.join(tmp, 'mnt');
    const script = [
      `mkdir -p '${mnt}' && mount -t tmpfs -o size=10m tmpfs '${mnt}'`,
      `'${process.execPath}' bin/benchtop.js train ner --model resources/models/default-student --train '${train}' --out '${mnt}/run' --max-steps 2 --checkpoint-every 1`,
      'echo "rc=$?"',
      `ls -A '${mnt}'`,
    ].join('; ');
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toContain(`${mnt}/run/checkpoint/optimizer-step1.safetensors: the disk is full; free some space and run again`);
    const lines = r.stdout.trim().split('\n');
    const at = lines.findIndex((l) => l.startsWith('rc='));
    expect(lines[at]).toBe('rc=1');
    expect(lines.slice(at + 1)).toEqual([]); // nothing left on the full disk
  }, 60_000);
});
