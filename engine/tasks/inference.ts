// Eval-mode inference for task models: one onnxruntime session over the forward graph (weights
// fed as inputs, so no copy into the model file), 2 intra-op threads by default. Blocks its
// thread during session.run: call it from a worker (engine/runtime/jobs.ts) or the CLI.

import type { EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { type Device, Session } from '../runtime/session.ts';
import { buildInferenceGraph } from '../train/graphs.ts';
import type { Batch } from '../train/trainer.ts';

/** Runs a model's forward pass on padded batches. */
export interface Predictor {
  logits: (batch: Omit<Batch, 'labels'>) => Promise<HostTensor>;
  release: () => Promise<void>;
  /** Where it runs, and why not where asked (see Session.fallbackReason). */
  device: Device;
  deviceNote?: string;
}

export interface PredictorOptions {
  /**
   * Int8 encoder linears (engine/train/quantize.ts): 2–5× faster on CPUs with integer dot-
   * product units, logits within a few hundredths of float32. The weights are baked into the
   * session, quantized once.
   */
  int8?: boolean;
  /** Where it runs (default the CPU). Int8 runs on the CPU: it is the CPU's fast path. */
  device?: Device;
  /** The model's folder, named when its scores are not finite. */
  name?: string;
}

/** Why an int8 predictor asked to run on the GPU runs on the CPU. */
export const INT8_ON_CPU = 'int8 inference runs on the CPU only, so this runs on the CPU; turn int8 off to use the GPU';

/** A predictor over `weights` (eval mode, dropout off). */
export async function createPredictor(
  config: EncoderConfig,
  weights: ReadonlyMap<string, HostTensor>,
  threads = 2,
  options: PredictorOptions = {},
): Promise<Predictor> {
  const spec = options.int8 ? buildInferenceGraph(config, { weights, int8: true }) : buildInferenceGraph(config);
  const fed = options.int8 ? [] : spec.params;
  const device = options.int8 ? 'cpu' : (options.device ?? 'cpu');
  const session = await Session.create(serializeModel(spec.model), { threads, device });
  // Asked for the GPU with int8 on, the run used to go to the CPU without a word.
  const int8Note = options.int8 && options.device === 'webgpu' ? INT8_ON_CPU : undefined;
  const deviceNote = session.fallbackReason ?? int8Note;
  return {
    device: session.device,
    ...(deviceNote !== undefined && { deviceNote }),
    logits: async (batch) => {
      const dims = [batch.batchSize, batch.seqLen];
      const feeds: Record<string, HostTensor> = {
        input_ids: { dtype: 'int64', dims, data: batch.inputIds },
        attention_mask: { dtype: 'int64', dims, data: batch.attentionMask },
      };
      if (spec.hasTokenTypes)
        feeds['token_type_ids'] = {
          dtype: 'int64',
          dims,
          data: batch.tokenTypeIds ?? new BigInt64Array(batch.inputIds.length),
        };
      for (const p of fed) {
        const w = weights.get(p);
        if (!w) throw new Error(`missing parameter "${p}"`);
        feeds[p] = w;
      }
      const logits = (await session.run(feeds, ['logits']))['logits'] as HostTensor;
      // NaN would become label 0 (argmax) with NaN confidences: a label nobody predicted.
      if (!(logits.data as Float32Array).every(Number.isFinite)) {
        const who = options.name !== undefined ? `${options.name}: the model` : 'the model';
        throw new Error(`${who} gives non-finite scores (NaN/Infinity) on this input; its weights are damaged or far too large`);
      }
      return logits;
    },
    release: () => session.release(),
  };
}
