// documents:export onto a disk that fills part-way (a 1 MB tmpfs mounted in a user namespace,
// where Linux allows them; 592 NCBI abstracts need more): the error names the output and says
// the disk is full, and nothing is left on the disk, not even the folder the export made.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const NCBI_TRAIN = resolve(ROOT, '../shared/data/documents/pubtator-ncbi/NCBItrainset_corpus.txt');
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;
const why = canMount ? '' : ' (skipped: needs Linux with unprivileged user namespaces, `unshare -rm`)';
const tmp = mkdtempSync(join(tmpdir(), 'benchtop-export-full-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.runIf(canMount)(`documents:export onto a full disk${why}`, () => {
  it('names the output, says the disk is full, and leaves nothing behind', () => {
    const mnt = join(tmp, 'mnt');
    const script = join(tmp, 'export.mts');
    writeFileSync(
      script,
      `import { readdirSync } from 'node:fs';
import { openTestEngine } from ${JSON.stringify(join(ROOT, 'engine/api/test-engine.ts'))};
const t = openTestEngine('benchtop-export-full-engine-');
const projectId = (await t.call('projects:create', { name: 'Full disk' })).id;
await t.call('documents:import', { projectId, path: ${JSON.stringify(NCBI_TRAIN)}, containsPhi: false });
for (const [format, outPath] of [['jsonl', '${mnt}/new/all.jsonl'], ['brat', '${mnt}/set']]) {
  const reply = await t.invoke('documents:export', { projectId, format, outPath });
  console.log(JSON.stringify({ format, reply, left: readdirSync('${mnt}') }));
}
await t.close();
`,
    );
    const mount = `mkdir -p '${mnt}' && mount -t tmpfs -o size=1m tmpfs '${mnt}'`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', `${mount} && '${process.execPath}' --import tsx '${script}'`], { cwd: ROOT, encoding: 'utf8' });
    const results = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(results).toEqual([
      {
        format: 'jsonl',
        reply: { ok: false, error: { code: 'invalid', message: `${mnt}/new/all.jsonl: the disk is full; nothing was written (free some space and run again)` } },
        left: [],
      },
      {
        format: 'brat',
        reply: { ok: false, error: { code: 'invalid', message: `${mnt}/set: the disk is full; nothing was written (free some space and run again)` } },
        left: [],
      },
    ]);
  }, 60_000);
});
