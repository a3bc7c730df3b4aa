// A model folder given to eval, predict or model inspect that holds only the checkpoint/ of a run
// stopped early (Ctrl-C, a time limit in distill or pretrain): the error says to finish the run,
// where "save the model with save_pretrained" sent the user looking for a lost model.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-helpers.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'unfinished-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a folder holding only an unfinished run', () => {
  it('is named as such, with how to finish it', async () => {
    const out = path.join(dir, 'my-ner');
    mkdirSync(path.join(out, 'checkpoint'), { recursive: true });
    writeFileSync(path.join(out, 'checkpoint', 'state.json'), '{}');
    for (const args of [['model', 'inspect', out], ['eval', 'ner', '--model', out, '--data', path.join(dir, 'test.tsv')]]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expect(r.errors).toBe(
        `benchtop: error: ${path.join(out, 'config.json')}: missing: this folder holds only the checkpoint/ of a run that has not finished (train, pretrain or distill stopped early); run the same command again to finish it (it resumes from there)`,
      );
    }
  });
});
