// `npm run bench`: engine vs PyTorch (Debian python3-torch, OpenMP OpenBLAS pinned) for a
// training step and inference at TinyBERT and Bioformer-8L size, batch 16 x 128, 2 threads.
// Both run as child processes answering the same protocol; rounds are interleaved and the
// medians compared. Prints a table and, last, one JSON line with the ratios per config.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { engineProcessEnv } from '../../engine/runtime/process-env.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PY = '/usr/bin/python3';
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
/** Give PyTorch the engine's allocator settings too (by default it runs with glibc's defaults). */
const SAME_ALLOCATOR = args.has('--same-allocator');

const CONFIGS = [
  { name: 'TinyBERT 4L-312', preset: 'tiny-4L-312', vocab: 28996, hidden: 312, layers: 4, heads: 12, inter: 1200 },
  { name: 'Bioformer-8L', preset: 'bioformer-8L', vocab: 32768, hidden: 512, layers: 8, heads: 8, inter: 2048 },
];

function ensureTorch(): void {
  const ok = spawnSync(PY, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
  if (!ok) {
    console.error('installing Debian python3-torch and OpenMP OpenBLAS for the reference...');
    const r = spawnSync('bash', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch libopenblas0-openmp >/dev/null'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('could not install python3-torch (needs apt and root)');
  }
  // Pin the OpenMP OpenBLAS (engine notes, pitfall 7): the pthread/reference BLAS is 2-3x slower.
  const lib = '/usr/lib/x86_64-linux-gnu/openblas-openmp';
  if (existsSync(lib)) {
    for (const [alt, file] of [['libblas.so.3-x86_64-linux-gnu', 'libblas.so.3'], ['liblapack.so.3-x86_64-linux-gnu', 'liblapack.so.3'], ['libopenblas.so.0-x86_64-linux-gnu', 'libopenblas.so.0']] as const) {
      if (existsSync(path.join(lib, file))) spawnSync('update-alternatives', ['--set', alt, path.join(lib, file)], { stdio: 'ignore' });
    }
  }
}

class Peer {
  #lines: AsyncIterableIterator<string>;
  constructor(readonly proc: ChildProcessWithoutNullStreams) {
    this.#lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
    proc.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  }
  async ask<T>(cmd: string): Promise<T> {
    this.proc.stdin.write(`${cmd}\n`);
    const next = (await this.#lines.next()) as IteratorResult<string, undefined>;
    if (next.done) throw new Error(`peer exited while running "${cmd}"`);
    return JSON.parse(next.value) as T;
  }
  quit(): void {
    this.proc.stdin.write('quit\n');
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * OpenBLAS picks its kernels from the CPU model; on VMs that report a generic "Intel Xeon
 * Processor" it falls back to the pre-AVX "Prescott" kernels and runs ~5x slower. Name the core
 * type from the CPU flags so the PyTorch baseline gets the same SIMD width MLAS uses.
 */
function openblasCoreType(): string | undefined {
  try {
    const flags = readFileSync('/proc/cpuinfo', 'utf8');
    if (/\bavx512f\b/.test(flags)) return 'SkylakeX';
    if (/\bavx2\b/.test(flags)) return 'Haswell';
  } catch {
    return undefined;
  }
  return undefined;
}

async function benchConfig(c: (typeof CONFIGS)[number]): Promise<Record<string, number>> {
  const shared = { batch: 16, seq: 128, threads: 2 };
  const core = process.env['OPENBLAS_CORETYPE'] ?? openblasCoreType();
  const env = { ...process.env, OMP_NUM_THREADS: '2', OPENBLAS_NUM_THREADS: '2', ...(core ? { OPENBLAS_CORETYPE: core } : {}) };
  // The engine side runs with the allocator settings every engine process gets (bin/benchtop.js,
  // Electron's engine host); PyTorch with glibc's defaults unless --same-allocator.
  const ours = new Peer(spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bench/engine-worker.ts'), JSON.stringify({ ...shared, preset: c.preset, vocab: c.vocab })], { env: engineProcessEnv(env), cwd: ROOT }));
  const torch = new Peer(spawn(PY, [path.join(ROOT, 'scripts/bench/torch_ref.py'), JSON.stringify({ ...shared, ...c })], { env: SAME_ALLOCATOR ? engineProcessEnv(env) : env }));
  // One step (or batch) per side per round, the side that goes first alternating (ABBA): the
  // VM's speed drifts by tens of percent over minutes, and blocks of steps per side let a drift
  // between the two blocks bias the ratio; single alternating samples cancel it.
  const rounds = QUICK ? 4 : 12;
  const t = { ours: [] as number[], torch: [] as number[] };
  const i = { ours: [] as number[], torch: [] as number[] };
  const sides = [{ peer: ours, name: 'ours' }, { peer: torch, name: 'torch' }] as const;
  const sample = async (cmd: string, into: { ours: number[]; torch: number[] }, r: number): Promise<void> => {
    for (const s of r % 2 === 0 ? sides : [...sides].reverse()) into[s.name].push(...(await s.peer.ask<{ times: number[] }>(`${cmd} 1`)).times);
  };
  // Warm-up (session creation, first-touch allocation) is excluded.
  await ours.ask('train 1');
  await torch.ask('train 1');
  await ours.ask('infer 1');
  await torch.ask('infer 1');
  for (let r = 0; r < rounds; r++) {
    await sample('train', t, r);
    await sample('infer', i, r);
  }
  const rssOurs = (await ours.ask<{ peak_rss_bytes: number }>('rss')).peak_rss_bytes;
  const rssTorch = (await torch.ask<{ peak_rss_bytes: number }>('rss')).peak_rss_bytes;
  // Int8 inference after the memory reading (both sides build a second, quantized model):
  // ours (DynamicQuantizeMatMul) against PyTorch's own dynamic int8 quantization.
  const q = { ours: [] as number[], torch: [] as number[] };
  await ours.ask('infer8 1');
  await torch.ask('infer8 1');
  for (let r = 0; r < rounds; r++) await sample('infer8', q, r);
  ours.quit();
  torch.quit();
  const seqs = shared.batch;
  return {
    train_s_ours: median(t.ours),
    train_s_torch: median(t.torch),
    infer_seq_s_ours: seqs / median(i.ours),
    infer_seq_s_torch: seqs / median(i.torch),
    peak_rss_gb_ours: rssOurs / 1e9,
    peak_rss_gb_torch: rssTorch / 1e9,
    infer8_seq_s_ours: seqs / median(q.ours),
    infer8_seq_s_torch: seqs / median(q.torch),
  };
}

ensureTorch();
const results: Record<string, Record<string, number>> = {};
for (const c of CONFIGS) {
  if (QUICK && c.preset !== 'tiny-4L-312') continue;
  const r = await benchConfig(c);
  results[c.preset] = {
    ...r,
    train_step_ratio: (r.train_s_ours as number) / (r.train_s_torch as number),
    infer_ratio: (r.infer_seq_s_ours as number) / (r.infer_seq_s_torch as number),
    peak_rss_ratio: (r.peak_rss_gb_ours as number) / (r.peak_rss_gb_torch as number),
    infer_int8_ratio: (r.infer8_seq_s_ours as number) / (r.infer8_seq_s_torch as number),
    infer_int8_vs_torch_fp32: (r.infer8_seq_s_ours as number) / (r.infer_seq_s_torch as number),
  };
}
const f = (x: number | undefined, d = 3): string => (x === undefined ? '-' : x.toFixed(d));
console.log('| config | train s/step ours | torch | ratio | infer seq/s ours | torch | ratio | peak RSS GB ours | torch | ratio |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const [k, r] of Object.entries(results)) {
  console.log(`| ${k} | ${f(r.train_s_ours)} | ${f(r.train_s_torch)} | ${f(r.train_step_ratio, 2)} | ${f(r.infer_seq_s_ours, 1)} | ${f(r.infer_seq_s_torch, 1)} | ${f(r.infer_ratio, 2)} | ${f(r.peak_rss_gb_ours, 2)} | ${f(r.peak_rss_gb_torch, 2)} | ${f(r.peak_rss_ratio, 2)} |`);
}
console.log('');
console.log('| config | int8 infer seq/s ours | PyTorch int8 | ratio | ours int8 / PyTorch fp32 |');
console.log('|---|---|---|---|---|');
for (const [k, r] of Object.entries(results)) {
  console.log(`| ${k} | ${f(r.infer8_seq_s_ours, 1)} | ${f(r.infer8_seq_s_torch, 1)} | ${f(r.infer_int8_ratio, 2)} | ${f(r.infer_int8_vs_torch_fp32, 2)} |`);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(results).map(([k, r]) => [k, { train_step_ratio: r.train_step_ratio, infer_ratio: r.infer_ratio, peak_rss_ratio: r.peak_rss_ratio, infer_int8_ratio: r.infer_int8_ratio }]))));
