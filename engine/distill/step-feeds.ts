// The feeds of one distillation step: a padded batch of transfer sentences with the teacher's
// cached targets (logits, the NER KL mask, hidden states), or a private batch with its labels.

import type { HostTensor } from '../onnx/ir.ts';
import { teacherInputName } from './graph.ts';
import type { openTeacherCache } from './teacher-cache.ts';

/** Input ids and attention mask (and zero token types when the graph takes them) with `extra` feeds. */
export function feedsOf(b: { batchSize: number; seqLen: number; inputIds: BigInt64Array; attentionMask: BigInt64Array }, tokenTypes: boolean, extra: Record<string, HostTensor>): Record<string, HostTensor> {
  const dims = [b.batchSize, b.seqLen];
  const feeds: Record<string, HostTensor> = { input_ids: { dtype: 'int64', dims, data: b.inputIds }, attention_mask: { dtype: 'int64', dims, data: b.attentionMask }, ...extra };
  if (tokenTypes) feeds['token_type_ids'] = { dtype: 'int64', dims, data: new BigInt64Array(b.inputIds.length) };
  return feeds;
}

/** A padded transfer batch with its teacher targets. */
export function transferFeeds(recs: readonly ReturnType<ReturnType<typeof openTeacherCache>['read']>[], padId: number, tokenTypes: boolean, tokenLevel: boolean, hiddenLayer: number | undefined): Record<string, HostTensor> {
  const B = recs.length;
  const T = Math.max(...recs.map((r) => r.ids.length));
  const L = recs[0]?.labels ?? 1;
  const ids = new BigInt64Array(B * T).fill(BigInt(padId));
  const mask = new BigInt64Array(B * T);
  const kl = new Float32Array(B * T);
  const logits = new Float32Array(tokenLevel ? B * T * L : B * L);
  const C = recs[0]?.hiddenDim ?? 0;
  const hidden = hiddenLayer !== undefined ? new Float32Array(B * T * C) : undefined;
  recs.forEach((r, b) => {
    r.ids.forEach((id, t) => {
      ids[b * T + t] = BigInt(id);
      mask[b * T + t] = 1n;
      kl[b * T + t] = r.klMask[t] ?? 0;
    });
    logits.set(r.logits, tokenLevel ? b * T * L : b * L);
    if (hidden && r.hidden[0]) hidden.set(r.hidden[0], b * T * C);
  });
  const extra: Record<string, HostTensor> = { [teacherInputName('logits')]: { dtype: 'float32', dims: tokenLevel ? [B, T, L] : [B, L], data: logits } };
  if (tokenLevel) extra['kl_mask'] = { dtype: 'float32', dims: [B, T], data: kl };
  if (hidden && hiddenLayer !== undefined) extra[teacherInputName('hidden', hiddenLayer)] = { dtype: 'float32', dims: [B, T, C], data: hidden };
  return feedsOf({ batchSize: B, seqLen: T, inputIds: ids, attentionMask: mask }, tokenTypes, extra);
}
