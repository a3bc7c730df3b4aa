import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import type { TaskEvent } from '../tasks/events.ts';
import { withTaskMeta, type TaskMeta } from '../tasks/model-setup.ts';
import { distillTask } from './task-distill.ts';
import { decodeRecord, encodeRecord, floatToHalf } from './teacher-cache.ts';
import { halfToFloat } from '../checkpoints/tensor-bytes.ts';
import { labelMapping, mapLogits } from './task-transfer.ts';

const SETTINGS = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' } };
const WORDNET = (): string[] => ['a serious disease of the heart muscle', 'the state of being free of illness or injury', 'an animal that lives in the water', 'a tumour of the skin that grows slowly'];

function writeModel(dir: string, vocabFile: string, task: 'ner' | 're', labels: string[], layers = 2, hiddenSize = 128): string {
  const vocab = readVocab(vocabFile);
  const base = presetConfig('small-2L-128', 'bert', vocab.length, labels, task === 'ner' ? 'token-classification' : 'sequence-classification');
  const meta: TaskMeta = task === 'ner' ? { task, maxLength: 32, stride: 8 } : { task, maxLength: 32, negativeLabel: '0', entityPairs: [['GENE', 'DISEASE']] };
  const config = withTaskMeta({ ...base, numLayers: layers, ...(hiddenSize !== 128 && { hiddenSize, intermediateSize: 4 * hiddenSize }) }, meta);
  saveHfFolder(dir, { config, weights: initWeights(config, 3), vocab, tokenizer: SETTINGS });
  return dir;
}

describe('teacher cache records', () => {
  it('round-trip ids, masks, logits and float16 hidden states', () => {
    const rec = { ids: Int32Array.from([2, 9, 3]), klMask: Uint8Array.from([0, 1, 0]), logits: Float32Array.from([1, -2, 0.5, 3, 4, 5, 6, 7, 8]), rows: 3, labels: 3, hidden: [Float32Array.from([0.5, -1.25, 3, 0.1, 2, 1])], hiddenDim: 2 };
    const back = decodeRecord(encodeRecord(rec));
    expect([...back.ids]).toEqual([2, 9, 3]);
    expect([...back.klMask]).toEqual([0, 1, 0]);
    expect([...back.logits]).toEqual([...rec.logits]);
    expect(back.hidden[0]?.[1]).toBe(-1.25);
    expect(Math.abs((back.hidden[0]?.[3] ?? 0) - 0.1)).toBeLessThan(1e-3);
    for (const x of [0, 1, -2.5, 65504, 1e-6, -3.14159]) expect(Math.abs(halfToFloat(floatToHalf(x)) - x)).toBeLessThanOrEqual(Math.abs(x) * 1e-3 + 1e-7);
  });

  it('maps labels by name, merging teacher-only labels into the fallback, and refuses unknown student labels', () => {
    const m = labelMapping(['O', 'B-Chemical', 'I-Chemical', 'B-Disease', 'I-Disease'], ['O', 'B-Disease', 'I-Disease'], 'O');
    expect(m.groups).toEqual([[0, 1, 2], [3], [4]]);
    expect(m.merged).toEqual(['B-Chemical', 'I-Chemical']);
    expect(() => labelMapping(['O', 'B-Disease', 'I-Disease'], ['O', 'B-Gene', 'I-Gene'], 'O')).toThrow(/unknown to the teacher/);
  });

  it('gives merged teacher labels the sum of their probabilities at the distillation temperature', () => {
    // Teacher logits O, B-Chemical, B-Disease = 0, 0, 0; the student has O (with B-Chemical) and B-Disease.
    // At T = 2 the teacher puts 1/3 on each, so the student's soft target is O 2/3, B-Disease 1/3.
    const soft = (v: Float32Array, t: number): number[] => {
      const e = [...v].map((z) => Math.exp(z / t));
      return e.map((x) => x / e.reduce((a, c) => a + c, 0));
    };
    for (const [t, logits, want] of [[2, [0, 0, 0], [2 / 3, 1 / 3]], [0.5, [1, -1, 2], [(Math.exp(2) + Math.exp(-2)) / (Math.exp(2) + Math.exp(-2) + Math.exp(4)), Math.exp(4) / (Math.exp(2) + Math.exp(-2) + Math.exp(4))]]] as const) {
      const dst = new Float32Array(2);
      mapLogits(Float32Array.from(logits), 0, [[0, 1], [2]], t, dst, 0);
      soft(dst, t).forEach((p, i) => expect(p).toBeCloseTo(want[i] ?? NaN, 6));
    }
  });
});

describe('task-specific distillation', () => {
  it('NER: distills a preset student on general + random text and records a no-PHI lineage', async () => {
    const { dir, file } = writeCorpus('distill-ner', 6);
    const vocab = writeTinyVocab(dir);
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, 'ner', ['O', 'B-Disease', 'I-Disease'], 3);
    const out = path.join(dir, 'student');
    // Scored at the end on annotated notes: the card gives the score, not where the notes are.
    const test = path.join(dir, 'ward-notes-test.tsv');
    writeFileSync(test, 'Patient\tO\nwith\tO\nasthma\tB-Disease\n\nNo\tO\nfever\tB-Disease\n\n');
    const args = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: `general,random,${file}`, out, steps: 4, batchSize: 4, maxPerSource: 12, wordNet: WORDNET, test };
    const res = await distillTask(args);
    expect(res.status).toBe('completed');
    const model = loadHfFolder(out);
    expect(model.config.labels).toEqual(['O', 'B-Disease', 'I-Disease']);
    expect(model.config.numLayers).toBe(2);
    const lineage = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as { phi_status: string; statement: string; entries: { kind: string }[] };
    expect(lineage.phi_status).toBe('distilled-from-phi-teacher');
    expect(lineage.statement).toBe('no PHI in training data; distilled from a PHI-trained teacher');
    expect(lineage.entries.map((e) => e.kind)).toEqual(['teacher', 'distill-transfer', 'distill-transfer', 'distill-transfer']);
    // The shareable student names its teacher without the teacher folder's full path.
    expect(lineage.entries[0]).toMatchObject({ source: 'teacher model "teacher" (identified by the sha256 of its weights)', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
    // Nor the folders of its transfer text: no file the student ships names the user's folders.
    for (const f of ['lineage.json', 'metrics.json', 'README.md']) expect(readFileSync(path.join(out, f), 'utf8')).not.toContain(dir);
    expect(lineage.entries[3]).toMatchObject({ source: 'text from "corpus.txt"', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toMatch(/What it does not guarantee/);
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toMatch(/^Test F1 \(ward-notes-test\.tsv\): /m);
    expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
  }, 60_000);

  it('NER: a student from teacher layers, mixed with private labelled data (alpha), is marked as trained on PHI', async () => {
    const { dir, file } = writeCorpus('distill-private', 4);
    const vocab = writeTinyVocab(dir);
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, 'ner', ['O', 'B-Disease', 'I-Disease'], 4);
    const priv = path.join(dir, 'private.conll');
    writeFileSync(priv, 'Colon\tB-Disease\ncancer\tI-Disease\nis\tO\ncommon\tO\n.\tO\n\nThe\tO\ndog\tO\nran\tO\n.\tO\n\n');
    const out = path.join(dir, 'student');
    const res = await distillTask({ task: 'ner', teacher, initFromTeacher: true, transfer: file, out, steps: 4, batchSize: 2, alpha: 0.5, privateData: priv });
    expect(res.status).toBe('completed');
    expect(loadHfFolder(out).config.numLayers).toBe(2);
    const lineage = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as { phi_status: string; entries: { kind: string; weight?: number }[] };
    expect(lineage.phi_status).toBe('trained-on-phi');
    expect(lineage.entries.find((e) => e.kind === 'distill-private')?.weight).toBe(0.5);
  }, 60_000);

  it('NER: a student started from PHI-trained weights (teacher layers, a fine-tuned folder) is not marked as having seen no PHI', async () => {
    const { dir, file } = writeCorpus('distill-start', 4);
    const vocab = writeTinyVocab(dir);
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, 'ner', ['O', 'B-Disease', 'I-Disease'], 4);
    const base = { task: 'ner' as const, teacher, transfer: file, steps: 2, batchSize: 2 };
    const layers = await distillTask({ ...base, initFromTeacher: true, out: path.join(dir, 's1') });
    expect(layers.lineage?.phi_status).toBe('trained-on-phi');
    expect(layers.lineage?.entries.map((e) => e.kind)).toEqual(['teacher', 'init', 'distill-transfer']);
    const card = readFileSync(path.join(dir, 's1', 'README.md'), 'utf8');
    expect(card).toMatch(/\*\*Status: trained on PHI/);
    expect(card).not.toMatch(/What this guarantees/);
    // The teacher's own folder as the student; then a folder with no lineage record (origin unknown).
    expect((await distillTask({ ...base, student: teacher, out: path.join(dir, 's2') })).lineage?.phi_status).toBe('trained-on-phi');
    const other = writeModel(path.join(dir, 'other'), vocab, 'ner', ['O', 'B-Disease', 'I-Disease']);
    expect((await distillTask({ ...base, student: other, out: path.join(dir, 's3') })).lineage?.phi_status).toBe('unknown');
  }, 60_000);

  it('takes a learning rate of 5e-4 for a small student and 5e-5 for a larger one when none is given', async () => {
    // The measured recipe (README "Distillation without PHI") is 5e-4 for students of hidden size
    // 128; the shipped default student is one. 5e-5 was the default for every --student.
    const { dir, file } = writeCorpus('distill-lr', 4);
    const vocab = writeTinyVocab(dir);
    const labels = ['O', 'B-Disease', 'I-Disease'];
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, 'ner', labels);
    const base = { task: 'ner' as const, teacher, transfer: file, steps: 2, batchSize: 2 };
    const lrOf = (r: { metrics?: Record<string, unknown> }): unknown => (r.metrics?.['settings'] as { lr?: unknown } | undefined)?.lr;
    expect(lrOf(await distillTask({ ...base, student: writeModel(path.join(dir, 'small'), vocab, 'ner', labels), out: path.join(dir, 's1') }))).toBe(5e-4);
    expect(lrOf(await distillTask({ ...base, student: writeModel(path.join(dir, 'wide'), vocab, 'ner', labels, 2, 320), out: path.join(dir, 's2') }))).toBe(5e-5);
    expect(lrOf(await distillTask({ ...base, studentPreset: 'small-2L-128', out: path.join(dir, 's3') }))).toBe(5e-4);
    expect(lrOf(await distillTask({ ...base, studentPreset: 'small-2L-128', lr: 1e-4, out: path.join(dir, 's4') }))).toBe(1e-4);
  }, 60_000);

  it('labels the transfer text again for a student of another vocabulary of the same size sharing the cache', async () => {
    const { dir, file } = writeCorpus('distill-cache-vocab', 4);
    const vocabFile = writeTinyVocab(dir);
    const teacher = writeModel(path.join(dir, 'teacher'), vocabFile, 'ner', ['O', 'B-Disease', 'I-Disease']);
    // Same size, two tokens swapped: the same text gets other ids.
    const tokens = readVocab(vocabFile);
    const [a, b] = [tokens.indexOf('cancer'), tokens.indexOf('disease')];
    const swapped = tokens.map((t, i) => (i === a ? tokens[b] : i === b ? tokens[a] : t) as string);
    const other = path.join(dir, 'other-vocab.txt');
    writeFileSync(other, `${swapped.join('\n')}\n`);
    const base = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: file, steps: 2, batchSize: 2, cacheDir: path.join(dir, 'cache') };
    const labelled = async (extra: { vocab?: string }, out: string): Promise<boolean> => {
      let ran = false;
      await distillTask({ ...base, ...extra, out: path.join(dir, out) }, { emit: (e) => (ran ||= e.type === 'infer-progress'), isCancelled: () => false });
      return ran;
    };
    expect(await labelled({ vocab: vocabFile }, 's1')).toBe(true);
    expect(await labelled({ vocab: vocabFile }, 's2')).toBe(false);
    expect(await labelled({ vocab: other }, 's3')).toBe(true);
  }, 60_000);

  it('RE: marks transfer sentences with the teacher entity pairs and distills a sequence classifier', async () => {
    const { dir, file } = writeCorpus('distill-re', 4);
    const vocab = writeTinyVocab(dir);
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, 're', ['0', '1']);
    const out = path.join(dir, 'student');
    const res = await distillTask({ task: 're', teacher, studentPreset: 'small-2L-128', transfer: file, out, steps: 3, batchSize: 4, hidden: 'mse' });
    expect(res.status).toBe('completed');
    const model = loadHfFolder(out);
    expect(model.config.task).toBe('sequence-classification');
    expect((model.config.raw['benchtop'] as { entity_pairs: string[][] }).entity_pairs).toEqual([['GENE', 'DISEASE']]);
  }, 60_000);

  it('refuses bad input clearly: empty or binary transfer files, too little text, mismatched labels', async () => {
    const { dir, file } = writeCorpus('distill-bad', 1);
    const vocab = writeTinyVocab(dir);
    const teacher = writeModel(path.join(dir, 'teacher'), vocab, 'ner', ['O', 'B-Disease', 'I-Disease']);
    const other = writeModel(path.join(dir, 'other'), vocab, 'ner', ['O', 'B-Gene', 'I-Gene']);
    writeFileSync(path.join(dir, 'empty.txt'), '');
    writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0, 159, 146, 150, 0, 1]));
    const base = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', steps: 2, batchSize: 2 };
    await expect(distillTask({ ...base, transfer: path.join(dir, 'empty.txt'), out: path.join(dir, 'o1') })).rejects.toThrow(/is empty/);
    await expect(distillTask({ ...base, transfer: path.join(dir, 'blob.bin'), out: path.join(dir, 'o2') })).rejects.toThrow(/looks binary/);
    await expect(distillTask({ ...base, batchSize: 64, transfer: file, out: path.join(dir, 'o3') })).rejects.toThrow(/fewer than one batch/);
    await expect(distillTask({ task: 'ner', teacher, student: other, transfer: file, steps: 2, out: path.join(dir, 'o4') })).rejects.toThrow(/unknown to the teacher/);
    await expect(distillTask({ ...base, transfer: file, lr: 2, out: path.join(dir, 'o6') })).rejects.toThrow('--lr must be a number > 0 and ≤ 1, got 2');
    expect(existsSync(path.join(dir, 'o6'))).toBe(false);
    // A folder's links are skipped (text from elsewhere), and the run says so.
    const folder = path.join(dir, 'transfer');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'own.txt'), readFileSync(file));
    symlinkSync(file, path.join(folder, 'linked.txt'));
    const logs: string[] = [];
    const ctx = { emit: (e: TaskEvent) => e.type === 'log' && logs.push(e.message), isCancelled: () => false };
    await expect(distillTask({ ...base, batchSize: 64, transfer: folder, out: path.join(dir, 'o5') }, ctx)).rejects.toThrow(/fewer than one batch/);
    expect(logs).toContain(`note: ${folder}: 1 linked file(s) or folder(s) skipped (links inside a folder are not followed)`);
  }, 60_000);
});

describe('cross-tokenizer alignment', () => {
  it('aligns NER targets on word starts when teacher and student vocabularies differ', async () => {
    const { WordPieceTokenizer } = await import('../text/wordpiece.ts');
    const { alignNer } = await import('./task-transfer.ts');
    const { dir } = writeCorpus('align', 1);
    const vocab = readVocab(writeTinyVocab(dir));
    const teacherTok = new WordPieceTokenizer(vocab);
    const studentTok = new WordPieceTokenizer(vocab.filter((t) => t !== 'cancer' && t !== 'breast'));
    const it = alignNer('The breast cancer spread.', teacherTok, studentTok, 32);
    expect(it).toBeDefined();
    // teacher and student piece different words into letters; word starts still match.
    const firsts = [...(it?.map ?? [])].filter((m) => m >= 0);
    expect(firsts).toEqual([1, 2, 3, 4, 10]); // "spread" is 6 letter pieces for the teacher
    expect(it?.studentIds.length).toBeGreaterThan(it?.teacherIds.length ?? 0);
  });
});
