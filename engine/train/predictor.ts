// Predictor: a model's inference graph with its weights baked in as initializers, so ORT can
// pre-pack GEMM weights, fold the weight transposes and fuse ops. For inference only: the
// Trainer feeds weights as inputs because they change every step.

import type { EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { Session, type Device } from '../runtime/session.ts';
import { buildInferenceGraph } from './graphs.ts';
import type { Batch } from './trainer.ts';

export class Predictor {
  private constructor(
    private readonly session: Session,
    readonly config: EncoderConfig,
    private readonly hasTokenTypes: boolean,
  ) {}

  /** Build the session (weights become initializers; takes ~0.5 s for a 14M model). */
  static async create(config: EncoderConfig, weights: ReadonlyMap<string, HostTensor>, options: { threads?: number; device?: Device } = {}): Promise<Predictor> {
    const spec = buildInferenceGraph(config, { weights });
    const session = await Session.create(serializeModel(spec.model), { threads: options.threads ?? 2, device: options.device ?? 'cpu' });
    return new Predictor(session, config, spec.hasTokenTypes);
  }

  get device(): Device {
    return this.session.device;
  }

  get fallbackReason(): string | undefined {
    return this.session.fallbackReason;
  }

  /** Logits for a padded batch: [B, T, L], [B, L] or [B, T, V] by task. */
  async predict(batch: Omit<Batch, 'labels'>): Promise<HostTensor> {
    const dims = [batch.batchSize, batch.seqLen];
    const feeds: Record<string, HostTensor> = {
      input_ids: { dtype: 'int64', dims, data: batch.inputIds },
      attention_mask: { dtype: 'int64', dims, data: batch.attentionMask },
    };
    if (this.hasTokenTypes) feeds['token_type_ids'] = { dtype: 'int64', dims, data: batch.tokenTypeIds ?? new BigInt64Array(batch.inputIds.length) };
    return (await this.session.run(feeds, ['logits']))['logits'] as HostTensor;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
