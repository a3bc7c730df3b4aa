// `pretrain --text DIR --out DIR --overwrite` deleted the text: saving a model replaces its whole
// folder. pretrain, distill-general and distill now refuse, before any work, an --out holding
// their text or data, or inside a data folder (as train does for its documents).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from '../checkpoints/hf-folder.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { pretrain } from '../pretrain/pretrain.ts';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { randomTaskModel } from '../tasks/test-helpers.ts';
import { distillGeneral } from './general-distill.ts';
import { distillTask } from './task-distill.ts';

describe('an --out that holds the text a run reads', () => {
  it('is refused by pretrain, distill-general and distill, which keep the text', async () => {
    const { dir, file } = writeCorpus('out-apart', 12);
    const vocab = writeTinyVocab(dir);
    const textDir = path.join(dir, 'text');
    mkdirSync(textDir);
    writeFileSync(path.join(textDir, 'a.txt'), readFileSync(file));
    const before = readdirSync(textDir);

    const mlm = { preset: 'small-2L-128', vocab, text: [textDir], steps: 1, batchSize: 2, maxLength: 24, evalBlocks: 1 };
    await expect(pretrain({ ...mlm, out: textDir, overwrite: true })).rejects.toThrow(`${textDir}: holds the --text data ${textDir}; saving the model replaces this whole folder`);
    await expect(pretrain({ ...mlm, out: dir, overwrite: true })).rejects.toThrow(`${dir}: holds the --text data ${textDir}`);
    const inside = path.join(textDir, 'model');
    await expect(pretrain({ ...mlm, out: inside })).rejects.toThrow(`${inside}: is inside the --text data folder ${textDir}`);

    const teacherDir = path.join(dir, 'mlm-teacher');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const { vocab: words, tokenizer } = loadHfFolder(teacher);
    const config = presetConfig('small-2L-128', 'bert', words.length, [], 'masked-lm');
    saveHfFolder(teacherDir, { config, weights: initWeights(config, 5), vocab: words, tokenizer });
    await expect(distillGeneral({ teacher: teacherDir, studentPreset: 'small-2L-128', recipe: 'distilbiobert', text: [textDir], steps: 1, batchSize: 2, maxLength: 24, evalBlocks: 1, out: textDir, overwrite: true })).rejects.toThrow(`${textDir}: holds the --text data ${textDir}`);

    await expect(distillTask({ task: 'ner', teacher, studentPreset: 'small-2L-128', transfer: textDir, out: textDir, overwrite: true, steps: 1, batchSize: 2, threads: 1 })).rejects.toThrow(`${textDir}: holds the --transfer data ${textDir}`);

    expect(readdirSync(textDir)).toEqual(before);
    expect(readFileSync(path.join(textDir, 'a.txt'))).toEqual(readFileSync(file));
  });

  it('is refused by distill and distill-general when it is, or holds, the teacher, which is kept', async () => {
    const { dir, file } = writeCorpus('out-teacher', 6);
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32, stride: 8 }, ['O', 'B-Disease', 'I-Disease']);
    const before = readdirSync(teacher);
    const task = { task: 'ner' as const, teacher, studentPreset: 'small-2L-128', transfer: file, overwrite: true, steps: 1, batchSize: 2, threads: 1 };
    // Without the check, --overwrite replaced the PHI teacher with its student.
    await expect(distillTask({ ...task, out: teacher })).rejects.toThrow(`${teacher}: is the teacher model ${teacher}; saving the student replaces this whole folder, which would delete the teacher. Choose another --out folder`);
    await expect(distillTask({ ...task, out: dir })).rejects.toThrow(`${dir}: holds the teacher model ${teacher}`);
    // Without --overwrite it said to pass --overwrite, which deleted the teacher.
    await expect(distillTask({ ...task, out: teacher, overwrite: false })).rejects.toThrow(`${teacher}: is the teacher model`);
    const { vocab: words, tokenizer } = loadHfFolder(teacher);
    const config = presetConfig('small-2L-128', 'bert', words.length, [], 'masked-lm');
    const mlmTeacher = path.join(dir, 'mlm-teacher');
    saveHfFolder(mlmTeacher, { config, weights: initWeights(config, 5), vocab: words, tokenizer });
    const mlmBefore = readdirSync(mlmTeacher);
    await expect(distillGeneral({ teacher: mlmTeacher, studentPreset: 'small-2L-128', recipe: 'tinybert', text: [file], steps: 1, batchSize: 2, maxLength: 24, evalBlocks: 1, out: mlmTeacher, overwrite: true })).rejects.toThrow(`${mlmTeacher}: is the teacher model ${mlmTeacher}`);
    expect(readdirSync(teacher)).toEqual(before);
    expect(readdirSync(mlmTeacher)).toEqual(mlmBefore);
  });
});
