// saveHfFolder given a symbolic link to a folder (a model folder kept on another disk) writes the
// model into that folder, as save_pretrained does, and keeps the link.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHfFolder, saveHfFolder } from './hf-folder.ts';

const GOLDEN = path.resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-save-link-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('saveHfFolder through a link to a folder', () => {
  it('writes into the folder linked to and keeps the link (it used to replace the link, leaving the folder stale)', () => {
    const model = loadHfFolder(GOLDEN);
    const disk = path.join(tmp, 'other-disk');
    const real = path.join(disk, 'ner-model');
    mkdirSync(real, { recursive: true });
    writeFileSync(path.join(real, 'old-model.txt'), 'the previous model');
    const link = path.join(tmp, 'ner-model');
    symlinkSync(real, link, 'dir');
    saveHfFolder(link, model);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(real).sort()).toEqual(['config.json', 'model.safetensors', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt']);
    expect(loadHfFolder(link).weights.get('classifier.weight')?.data).toEqual(model.weights.get('classifier.weight')?.data);
    // Nothing left beside either (temporary or old folders).
    expect(readdirSync(tmp).sort()).toEqual(['ner-model', 'other-disk']);
    expect(readdirSync(disk)).toEqual(['ner-model']);
  });
});
