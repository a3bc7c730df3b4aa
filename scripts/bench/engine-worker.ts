// Engine side of `npm run bench`: a child process that answers the same stdin protocol as
// torch_ref.py ("train N", "infer N", "infer8 N", "rss", "quit") for one model config. "infer8"
// runs the product's int8 predictor (engine/tasks/inference.ts) on the current weights.
import { createInterface } from 'node:readline';
import { presetConfig } from '../../engine/model/config.ts';
import { initWeights } from '../../engine/model/init.ts';
import { Trainer, type Batch } from '../../engine/train/trainer.ts';
import { rng } from '../../engine/autodiff/grad-check.ts';
import { createPredictor, type Predictor } from '../../engine/tasks/inference.ts';

interface BenchConfig { preset: string; vocab: number; batch: number; seq: number; threads: number }

const cfg = JSON.parse(process.argv[2] ?? '{}') as BenchConfig;
const labels = ['O', 'B-X', 'I-X'];
const config = presetConfig(cfg.preset, 'bert', cfg.vocab, labels, 'token-classification');
const trainer = await Trainer.create(config, initWeights(config, 0), {
  optimizer: { lr: 5e-5, weightDecay: 0.01, maxGradNorm: 1 },
  threads: cfg.threads,
});
const rand = rng(1);
const n = cfg.batch * cfg.seq;
const batch: Batch = {
  batchSize: cfg.batch,
  seqLen: cfg.seq,
  inputIds: BigInt64Array.from({ length: n }, () => BigInt(Math.floor(rand() * cfg.vocab))),
  attentionMask: new BigInt64Array(n).fill(1n),
  tokenTypeIds: new BigInt64Array(n),
  labels: BigInt64Array.from({ length: n }, () => BigInt(Math.floor(rand() * 3))),
};

let int8: Predictor | undefined;
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const [cmd, count] = line.trim().split(/\s+/);
  if (cmd === 'quit') break;
  if (cmd === 'rss') {
    process.stdout.write(`${JSON.stringify({ peak_rss_bytes: process.resourceUsage().maxRSS * 1024 })}\n`);
    continue;
  }
  const times: number[] = [];
  for (let i = 0; i < Number(count); i++) {
    const t0 = performance.now();
    if (cmd === 'train') await trainer.trainStep(batch);
    else if (cmd === 'infer8') {
      int8 ??= await createPredictor(config, trainer.weights(), cfg.threads, { int8: true });
      await int8.logits(batch);
    } else await trainer.predict(batch);
    times.push((performance.now() - t0) / 1000);
  }
  process.stdout.write(`${JSON.stringify({ times })}\n`);
}
await trainer.release();
await int8?.release();
process.exit(0);
