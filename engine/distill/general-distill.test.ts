import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { readVocab } from '../checkpoints/tokenizer-files.ts';
import { main } from '../cli/main.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { distillGeneral } from './general-distill.ts';

const SETTINGS = { doLowerCase: true, stripAccents: null, tokenizeChineseChars: true, modelMaxLength: 512, specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' } };

function mlmTeacher(dir: string, vocabFile: string, dims: { numLayers: number; hiddenSize: number; numHeads: number; intermediateSize: number }): string {
  const vocab = readVocab(vocabFile);
  const config = { ...presetConfig('small-2L-128', 'bert', vocab.length, [], 'masked-lm'), ...dims };
  saveHfFolder(dir, { config, weights: initWeights(config, 5), vocab, tokenizer: SETTINGS });
  return dir;
}

describe('task-agnostic distillation recipes', () => {
  it('distilbiobert: half-teacher student from every other layer; tinybert and compactbiobert with projections and a layer map', async () => {
    const { dir, file } = writeCorpus('general-distill', 12);
    const vocab = writeTinyVocab(dir);
    const wide = mlmTeacher(path.join(dir, 't-wide'), vocab, { numLayers: 4, hiddenSize: 128, numHeads: 2, intermediateSize: 512 });
    const narrow = mlmTeacher(path.join(dir, 't-narrow'), vocab, { numLayers: 4, hiddenSize: 64, numHeads: 4, intermediateSize: 128 });
    const common = { text: [file], steps: 3, batchSize: 2, maxLength: 24, evalBlocks: 2 };
    // The teacher says where its weights come from (distilbiobert copies every other layer).
    writeFileSync(path.join(wide, 'lineage.json'), JSON.stringify({ phi_status: 'no-phi', statement: '', entries: [] }));
    const a = await distillGeneral({ ...common, teacher: wide, studentPreset: 'half-teacher', recipe: 'distilbiobert', out: path.join(dir, 'a') });
    expect(a.status).toBe('completed');
    const terms = (a.metrics?.['loss_terms_last50'] ?? {}) as Record<string, number>;
    expect(Object.keys(terms).sort()).toEqual(['loss_hidden', 'loss_kl', 'loss_mlm']);
    const student = loadHfFolder(path.join(dir, 'a'));
    expect(student.config.numLayers).toBe(2);
    expect(student.config.task).toBe('masked-lm');
    expect((JSON.parse(readFileSync(path.join(dir, 'a', 'lineage.json'), 'utf8')) as { phi_status: string }).phi_status).toBe('no-phi');
    // The files a shared student carries never name the user's folders.
    for (const f of ['lineage.json', 'metrics.json', 'README.md']) expect(readFileSync(path.join(dir, 'a', f), 'utf8')).not.toContain(dir);
    const b = await distillGeneral({ ...common, teacher: narrow, studentPreset: 'small-2L-128', recipe: 'tinybert', layerMap: '1,3', out: path.join(dir, 'b') });
    expect(Object.keys(b.metrics?.['loss_terms_last50'] ?? {}).sort()).toEqual(['loss_attention', 'loss_embedding', 'loss_hidden', 'loss_kl']);
    const c = await distillGeneral({ ...common, teacher: narrow, studentPreset: 'small-2L-128', recipe: 'compactbiobert', out: path.join(dir, 'c') });
    expect(c.status).toBe('completed');
    // Layers of a teacher with no lineage.json (a folder from elsewhere): of unknown origin.
    const status = (m: string): string => (JSON.parse(readFileSync(path.join(dir, m, 'lineage.json'), 'utf8')) as { phi_status: string }).phi_status;
    expect(status('c')).toBe('no-phi'); // a preset student: only the teacher's outputs
    const e = await distillGeneral({ ...common, teacher: narrow, studentPreset: 'half-teacher', recipe: 'distilbiobert', out: path.join(dir, 'e') });
    expect(e.status).toBe('completed');
    expect(status('e')).toBe('unknown');
    await expect(distillGeneral({ ...common, teacher: narrow, studentPreset: 'small-2L-128', recipe: 'distilbiobert', out: path.join(dir, 'd') })).rejects.toThrow(/needs the same hiddenSize/);
    // The learning rate is checked as train's is, before any work (at 1e3 a run saved losses of 1e11).
    await expect(distillGeneral({ ...common, teacher: wide, studentPreset: 'small-2L-128', recipe: 'tinybert', lr: 1e3, out: path.join(dir, 'lr') })).rejects.toThrow('--lr must be a number > 0 and ≤ 1, got 1000');
  }, 90_000);

  it('records text declared as holding patient information as PHI (--text-contains-phi)', async () => {
    const { dir, file } = writeCorpus('general-distill-phi', 8);
    const teacher = mlmTeacher(path.join(dir, 't'), writeTinyVocab(dir), { numLayers: 2, hiddenSize: 64, numHeads: 2, intermediateSize: 128 });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const argv = ['distill-general', '--teacher', teacher, '--student-preset', 'half-teacher', '--recipe', 'distilbiobert', '--text', file, '--steps', '1', '--batch-size', '2', '--max-length', '24', '--text-contains-phi'];
      expect(await main([...argv, '--out', path.join(dir, 's')])).toBe(0);
      // The closing line says the student is PHI-bearing, as distill's does, not only lineage.json.
      expect(log.mock.calls.map((c) => String(c[0]))).toContain(`done: ${path.join(dir, 's')} (1 step; trained on PHI: private (possibly PHI-bearing) records contributed gradients; lineage in ${path.join(dir, 's')}/lineage.json)`);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    const lineage = JSON.parse(readFileSync(path.join(dir, 's', 'lineage.json'), 'utf8')) as { phi_status: string };
    expect(lineage.phi_status).toBe('trained-on-phi');
  }, 60_000);
});
