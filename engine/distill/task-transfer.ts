// Task-specific transfer examples and teacher targets: each transfer sentence is tokenized per
// model (teacher and student may have different vocabularies), NER targets are aligned on the
// first piece of each word by character offset, RE sentences get two entity markers of the
// teacher's type pairs on content words, and the teacher's logits are mapped to the student's
// labels by name (teacher-only labels merge into "O" / the negative label by log-sum-exp).

import type { EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { serializeModel } from '../onnx/serialize.ts';
import { type Device, Session } from '../runtime/session.ts';
import { makeBatch } from '../tasks/batching.ts';
import { encodeRe } from '../tasks/re-data.ts';
import type { Rng } from '../random.ts';
import type { WordPieceTokenizer } from '../text/wordpiece.ts';
import { buildInferenceGraph } from '../train/graphs.ts';
import type { CacheRecord } from './teacher-cache.ts';
import { words } from './transfer.ts';

/** A transfer example tokenized for both models; `map[p]` = teacher row of student position p or -1. */
export interface AlignedItem {
  studentIds: number[];
  teacherIds: number[];
  map: Int32Array;
}

/** For each student label, the teacher label indices whose probability it takes. */
export function labelMapping(teacher: readonly string[], student: readonly string[], fallback: string): { groups: number[][]; merged: string[] } {
  const missing = student.filter((l) => !teacher.includes(l));
  if (missing.length > 0) {
    throw new Error(`the student's label(s) ${missing.join(', ')} are unknown to the teacher (${teacher.join(', ')}); labels are matched by name: use a student with the teacher's labels or a preset student`);
  }
  const fb = student.indexOf(fallback);
  const groups = student.map((l) => [teacher.indexOf(l)]);
  const merged = teacher.filter((l) => !student.includes(l));
  if (merged.length > 0) {
    if (fb < 0) throw new Error(`the teacher's label(s) ${merged.join(', ')} have no counterpart in the student and it has no "${fallback}" label to merge them into`);
    for (const l of merged) groups[fb]?.push(teacher.indexOf(l));
  }
  return { groups, merged };
}

/** True when both tokenizers produce the same ids for any text (same vocabulary and settings). */
export function sameTokenization(a: { vocab: readonly string[]; tok: WordPieceTokenizer }, b: { vocab: readonly string[]; tok: WordPieceTokenizer }): boolean {
  return a.tok.doLowerCase === b.tok.doLowerCase && a.tok.stripAccents === b.tok.stripAccents && a.vocab.length === b.vocab.length && a.vocab.every((t, i) => t === b.vocab[i]) && JSON.stringify(a.tok.addedTokens) === JSON.stringify(b.tok.addedTokens);
}

/** NER: the sentence cut to whole words fitting both models, aligned on word starts. */
export function alignNer(text: string, tt: WordPieceTokenizer, st: WordPieceTokenizer, maxLength: number): AlignedItem | undefined {
  const t = tt.tokenize(text);
  const s = st.tokenize(text);
  const budget = maxLength - 2;
  // Cut both at the first word start (character offset) where either runs out of room.
  let limit = Infinity;
  if (t.ids.length > budget) limit = Math.min(limit, t.offsets[budget]?.[0] ?? Infinity);
  if (s.ids.length > budget) limit = Math.min(limit, s.offsets[budget]?.[0] ?? Infinity);
  const keepT = t.offsets.filter(([a]) => a < limit).length;
  const keepS = s.offsets.filter(([a]) => a < limit).length;
  // Back off to a word boundary so no word is split across the cut.
  const cutT = backToWordStart(t.wordIds, Math.min(keepT, budget));
  const cutS = backToWordStart(s.wordIds, Math.min(keepS, budget));
  if (cutS === 0 || cutT === 0) return undefined;
  const teacherStart = new Map<number, number>();
  for (let p = 0; p < cutT; p++) if (p === 0 || t.wordIds[p] !== t.wordIds[p - 1]) teacherStart.set(t.offsets[p]?.[0] ?? -1, p + 1);
  const map = new Int32Array(cutS + 2).fill(-1);
  for (let p = 0; p < cutS; p++) {
    if (p > 0 && s.wordIds[p] === s.wordIds[p - 1]) continue;
    map[p + 1] = teacherStart.get(s.offsets[p]?.[0] ?? -2) ?? -1;
  }
  return { studentIds: [st.clsId, ...s.ids.slice(0, cutS), st.sepId], teacherIds: [tt.clsId, ...t.ids.slice(0, cutT), tt.sepId], map };
}

function backToWordStart(wordIds: readonly number[], n: number): number {
  if (n >= wordIds.length) return wordIds.length;
  let k = n;
  while (k > 0 && wordIds[k] === wordIds[k - 1]) k--;
  return k;
}

/** RE: one sequence per model; the single row maps to the teacher's single row. */
export function alignRe(text: string, tt: WordPieceTokenizer, st: WordPieceTokenizer, maxLength: number): AlignedItem {
  const studentIds = encodeRe(st, text, maxLength);
  const map = new Int32Array(studentIds.length).fill(-1);
  map[0] = 0;
  return { studentIds, teacherIds: encodeRe(tt, text, maxLength), map };
}

/** A transfer sentence with two content words replaced by `@TYPE$` markers of a random type pair. */
export function markPair(sentence: string, pairs: readonly [string, string][], rng: Rng): string | undefined {
  const ws = words(sentence);
  const content = ws.map((w, i) => [w, i] as const).filter(([w]) => /^\p{L}[\p{L}\p{N}'’-]{2,}$/u.test(w));
  if (content.length < 2 || pairs.length === 0) return undefined;
  const a = Math.floor(rng.next() * content.length);
  let b = Math.floor(rng.next() * (content.length - 1));
  if (b >= a) b++;
  const pair = pairs[Math.floor(rng.next() * pairs.length)] as [string, string];
  const [first, second] = (content[a]?.[1] ?? 0) < (content[b]?.[1] ?? 0) ? [a, b] : [b, a];
  const out = [...ws];
  out[content[first]?.[1] ?? 0] = `@${pair[0]}$`;
  out[content[second]?.[1] ?? 0] = `@${pair[1]}$`;
  return out.join(' ');
}

/**
 * The teacher's logits row at `at` mapped to the student's labels at `to`. A group of several
 * teacher labels becomes T·logsumexp(z/T), so that softmax(·/T), which the KL loss takes,
 * gives the group the sum of its labels' probabilities at that temperature.
 */
export function mapLogits(src: Float32Array, at: number, groups: readonly number[][], temperature: number, dst: Float32Array, to: number): void {
  groups.forEach((g, k) => {
    if (g.length === 1) dst[to + k] = src[at + (g[0] as number)] ?? 0;
    else {
      const z = g.map((j) => (src[at + j] ?? -Infinity) / temperature);
      const m = Math.max(...z);
      dst[to + k] = temperature * (m + Math.log(z.reduce((acc, v) => acc + Math.exp(v - m), 0)));
    }
  });
}

/** Runs the teacher and turns its outputs into cache records for the student. */
export interface TeacherLabeller {
  label(items: readonly AlignedItem[]): Promise<CacheRecord[]>;
  release(): Promise<void>;
}

/** A labeller over the teacher's eval-mode forward pass (hidden layers returned when asked). */
export async function createTeacherLabeller(teacher: { config: EncoderConfig; weights: ReadonlyMap<string, HostTensor>; padId: number }, opts: { groups: number[][]; temperature: number; tokenLevel: boolean; hiddenLayers: readonly number[]; threads?: number; batchSize?: number; device?: Device }): Promise<TeacherLabeller> {
  const spec = buildInferenceGraph(teacher.config, { collectInternals: opts.hiddenLayers.length > 0 });
  const session = await Session.create(serializeModel(spec.model), { threads: opts.threads ?? 2, device: opts.device ?? 'cpu' });
  const outputs = ['logits', ...opts.hiddenLayers.map((l) => `hidden_states.${l}`)];
  const Lt = teacher.config.numLabels;
  const Ls = opts.groups.length;
  const C = teacher.config.hiddenSize;
  const mapRow = (src: Float32Array, at: number, dst: Float32Array, to: number): void => mapLogits(src, at, opts.groups, opts.temperature, dst, to);
  return {
    async label(items) {
      const records = new Array<CacheRecord>(items.length);
      const order = items.map((_, i) => i).sort((a, b) => (items[a]?.teacherIds.length ?? 0) - (items[b]?.teacherIds.length ?? 0));
      const bs = opts.batchSize ?? 32;
      for (let s = 0; s < order.length; s += bs) {
        const idx = order.slice(s, s + bs);
        const batch = makeBatch(items.map((it) => ({ ids: it.teacherIds, labels: 0 })), idx, teacher.padId);
        const dims = [batch.batchSize, batch.seqLen];
        const feeds: Record<string, HostTensor> = {
          input_ids: { dtype: 'int64', dims, data: batch.inputIds },
          attention_mask: { dtype: 'int64', dims, data: batch.attentionMask },
        };
        if (spec.hasTokenTypes) feeds['token_type_ids'] = { dtype: 'int64', dims, data: new BigInt64Array(batch.inputIds.length) };
        for (const p of spec.params) feeds[p] = teacher.weights.get(p) as HostTensor;
        const out = await session.run(feeds, outputs);
        const logits = out['logits']?.data as Float32Array;
        const T = batch.seqLen;
        idx.forEach((i, b) => {
          const it = items[i] as AlignedItem;
          const len = it.studentIds.length;
          const rows = opts.tokenLevel ? len : 1;
          const mapped = new Float32Array(rows * Ls);
          const klMask = new Uint8Array(len);
          if (opts.tokenLevel) {
            for (let p = 0; p < len; p++) {
              const tp = it.map[p] ?? -1;
              if (tp < 0) continue;
              klMask[p] = 1;
              mapRow(logits, (b * T + tp) * Lt, mapped, p * Ls);
            }
          } else {
            klMask.fill(1);
            mapRow(logits, b * Lt, mapped, 0);
          }
          const hidden = opts.hiddenLayers.map((l) => (out[`hidden_states.${l}`]?.data as Float32Array).slice(b * T * C, (b * T + len) * C));
          records[i] = { ids: Int32Array.from(it.studentIds), klMask, logits: mapped, rows, labels: Ls, hidden, hiddenDim: C };
        });
      }
      return records;
    },
    release: () => session.release(),
  };
}
