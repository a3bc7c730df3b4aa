// `npm run bench:setup`: how long a Trainer takes to get ready (training graph built, serialized
// and prepared by ONNX Runtime) and to step, with AdamW packed (the engine's default) and per
// tensor, for TinyBERT, Bioformer-8L and full-size MobileBERT (the BioMobileBERT shape), batch
// 16 x 128, 2 threads. Sides alternate within each config. Prints a table and, last, one JSON
// line per config: node counts, setup seconds and median step seconds per side.
// `--quick`: TinyBERT only (a smoke check of the script, not figures to quote).
import { parseHfConfig, presetConfig, type EncoderConfig } from '../../engine/model/config.ts';
import { initWeights } from '../../engine/model/init.ts';
import { buildTrainGraph } from '../../engine/train/graphs.ts';
import { Trainer, type Batch } from '../../engine/train/trainer.ts';

const QUICK = process.argv.includes('--quick');
const STEPS = 3;
const labels = ['O', 'B-X', 'I-X'];
const CONFIGS: { name: string; config: () => EncoderConfig }[] = [
  { name: 'TinyBERT 4L-312', config: () => presetConfig('tiny-4L-312', 'bert', 28996, labels, 'token-classification') },
  { name: 'Bioformer-8L', config: () => presetConfig('bioformer-8L', 'bert', 32768, labels, 'token-classification') },
  {
    name: 'MobileBERT-24',
    config: () =>
      parseHfConfig(
        {
          architectures: ['MobileBertForTokenClassification'],
          model_type: 'mobilebert',
          vocab_size: 30522,
          hidden_size: 512,
          embedding_size: 128,
          intra_bottleneck_size: 128,
          intermediate_size: 512,
          num_hidden_layers: 24,
          num_attention_heads: 4,
          num_feedforward_networks: 4,
          id2label: Object.fromEntries(labels.map((l, i) => [i, l])),
        },
        'bench:setup',
      ),
  },
];

function batchFor(config: EncoderConfig): Batch {
  const B = 16;
  const T = 128;
  const n = B * T;
  let s = 1;
  const next = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return {
    batchSize: B,
    seqLen: T,
    inputIds: BigInt64Array.from({ length: n }, () => BigInt(Math.floor(next() * config.vocabSize))),
    attentionMask: new BigInt64Array(n).fill(1n),
    tokenTypeIds: new BigInt64Array(n),
    labels: BigInt64Array.from({ length: n }, () => BigInt(Math.floor(next() * labels.length))),
  };
}

interface Side {
  nodes: number;
  setup_s: number;
  step_s: number;
}

async function measure(config: EncoderConfig, packOptimizer: boolean): Promise<Side> {
  const optimizer = { lr: 5e-5, weightDecay: 0.01, maxGradNorm: 1 };
  const nodes = buildTrainGraph(config, { optimizer, packOptimizer }).model.graph.nodes.length;
  const weights = initWeights(config, 0);
  const t0 = performance.now();
  const trainer = await Trainer.create(config, weights, { optimizer, threads: 2, packOptimizer });
  const setup = (performance.now() - t0) / 1000;
  const batch = batchFor(config);
  await trainer.trainStep(batch); // warm-up
  const times: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const t = performance.now();
    await trainer.trainStep(batch);
    times.push((performance.now() - t) / 1000);
  }
  await trainer.release();
  times.sort((a, b) => a - b);
  return { nodes, setup_s: setup, step_s: times[times.length >> 1] as number };
}

const rows: { name: string; packed: Side; perTensor: Side }[] = [];
for (const [i, c] of CONFIGS.entries()) {
  if (QUICK && i > 0) break;
  const config = c.config();
  // Alternate which side goes first, so drift in the VM's speed falls on both.
  const first = i % 2 === 0;
  const a = await measure(config, first);
  const b = await measure(config, !first);
  rows.push({ name: c.name, packed: first ? a : b, perTensor: first ? b : a });
  console.error(`${c.name} done`);
}

const f = (x: number, d = 2): string => x.toFixed(d);
console.log('| config | nodes packed | per tensor | setup s packed | per tensor | ratio | step s packed | per tensor | ratio |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.name} | ${r.packed.nodes} | ${r.perTensor.nodes} | ${f(r.packed.setup_s)} | ${f(r.perTensor.setup_s)} | ${f(r.packed.setup_s / r.perTensor.setup_s)} | ${f(r.packed.step_s, 3)} | ${f(r.perTensor.step_s, 3)} | ${f(r.packed.step_s / r.perTensor.step_s)} |`);
}
console.log(JSON.stringify(Object.fromEntries(rows.map((r) => [r.name, { packed: r.packed, per_tensor: r.perTensor, setup_ratio: r.packed.setup_s / r.perTensor.setup_s, step_ratio: r.packed.step_s / r.perTensor.step_s }]))));
process.exit(0);
