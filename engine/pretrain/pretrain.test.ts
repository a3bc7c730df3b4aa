import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DECODER, withDecoder, writeGoldenFolder } from '../checkpoints/added-token-test-folders.ts';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { main } from '../cli/main.ts';
import { missingGpuLibrary } from '../runtime/gpu-library.ts';
import type { TaskContext, TaskEvent } from '../tasks/events.ts';
import { WordPieceTokenizer } from '../text/wordpiece.ts';
import { batchMaskSeed, mlmBatch, mlmBlocks } from './mlm-data.ts';
import { pretrain } from './pretrain.ts';
import { writeCorpus, writeTinyVocab } from './test-corpus.ts';
import { checkTextSources, listTextFiles, skippedLinkNotes, textParagraphs } from './text-files.ts';

/** Cancels once a checkpoint at `step` or later was written. */
function stopAfter(step: number): TaskContext {
  let done = false;
  return { emit: (e) => (done ||= e.type === 'checkpoint' && e.step >= step), isCancelled: () => done };
}

describe('pretraining data', () => {
  it('packs streamed paragraphs into [CLS] … [SEP] blocks with word starts and masks them per batch', () => {
    const { dir, file } = writeCorpus('mlmdata', 6);
    const tok = WordPieceTokenizer.fromVocabFile(writeTinyVocab(dir));
    const blocks = [...mlmBlocks([file], tok, { maxLength: 24, holdoutEvery: 0, part: 'train', shuffleBuffer: 0, seed: 1 })];
    expect(blocks.length).toBeGreaterThan(10);
    for (const b of blocks) {
      expect(b.ids[0]).toBe(tok.clsId);
      expect(b.ids[b.ids.length - 1]).toBe(tok.sepId);
      expect(b.wordStarts.length).toBe(b.ids.length);
    }
    const held = [...mlmBlocks([file], tok, { maxLength: 24, holdoutEvery: 3, part: 'eval', shuffleBuffer: 0, seed: 1 })];
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThan(blocks.length);
    const batch = mlmBatch(blocks.slice(0, 4), { tok, wholeWord: true, vocabSize: tok.size }, batchMaskSeed(1, 1));
    expect(batch.mlmPositions?.length).toBe(batch.labels.length);
    expect(batch.labels.length).toBeGreaterThan(0);
    const again = mlmBatch(blocks.slice(0, 4), { tok, wholeWord: true, vocabSize: tok.size }, batchMaskSeed(1, 2));
    expect([...again.mlmPositions ?? []]).not.toEqual([...batch.mlmPositions ?? []]);
  });

  it('rejects empty and binary text files, and reads hard-wrapped paragraphs, JSONL and TSV', () => {
    const { dir } = writeCorpus('textfiles', 1);
    writeFileSync(path.join(dir, 'empty.txt'), '');
    writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0, 255]));
    expect(() => checkTextSources([path.join(dir, 'empty.txt')])).toThrow(/is empty/);
    expect(() => checkTextSources([path.join(dir, 'blob.bin')])).toThrow(/looks binary/);
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [path.join(dir, 'pipe')]);
      expect(() => checkTextSources([path.join(dir, 'pipe')])).toThrow(/pipe is not a regular file \(a pipe, socket or device\)/);
    }
    const f = path.join(dir, 'mixed.txt');
    writeFileSync(f, 'a hard wrapped\nline of a book.\n\n{"sentence1": "A man is playing a guitar on stage.", "label": "x"}\nsome sentence here\t1\n');
    expect([...textParagraphs([f])]).toEqual(['a hard wrapped line of a book.', 'A man is playing a guitar on stage.', 'some sentence here']);
  });

  it('walks a brat folder for its texts, not its annotation files', () => {
    const dir = path.join(writeCorpus('brat-folder', 1).dir, 'brat');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'note.txt'), 'The patient has asthma.\n');
    writeFileSync(path.join(dir, 'note.ann'), 'T1\tDisease 16 22\tasthma\n');
    expect(listTextFiles(dir)).toEqual([path.join(dir, 'note.txt')]);
    expect([...textParagraphs(listTextFiles(dir))]).toEqual(['The patient has asthma.']);
  });

  it('skips links inside a folder and says how many, per folder', () => {
    const dir = path.join(writeCorpus('links', 1).dir, 'transfer');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'a.txt'), 'Plain sentence.\n');
    const elsewhere = path.join(writeCorpus('links-elsewhere', 1).dir, 'private.txt');
    writeFileSync(elsewhere, 'Text from another place.\n');
    symlinkSync(elsewhere, path.join(dir, 'linked.txt'));
    symlinkSync(path.dirname(elsewhere), path.join(dir, 'sub', 'linked-folder'));
    expect(listTextFiles(dir)).toEqual([path.join(dir, 'a.txt')]);
    expect(skippedLinkNotes([dir, path.join(dir, 'a.txt')])).toEqual([
      `${dir}: 2 linked file(s) or folder(s) skipped (links inside a folder are not followed)`,
    ]);
  });

  // Until 2026-11-24 a folder of links alone was said to hold no files, and the log never said
  // a link was skipped (the note hit the same error first).
  it('says a folder that holds only links holds links, and to give the link itself', () => {
    const dir = path.join(writeCorpus('only-links', 1).dir, 'transfer');
    mkdirSync(dir);
    const elsewhere = path.join(writeCorpus('only-links-elsewhere', 1).dir, 'notes.txt');
    writeFileSync(elsewhere, 'Text from another place.\n');
    const link = path.join(dir, 'linked.txt');
    symlinkSync(elsewhere, link);
    const only = `${dir}: the folder holds no files, only 1 link(s), which are not followed inside a folder`;
    expect(() => listTextFiles(dir)).toThrow(only);
    expect(() => skippedLinkNotes([dir])).toThrow(only);
    expect(() => checkTextSources([dir])).toThrow(only);
    // The link given as the root is followed.
    expect(listTextFiles(link)).toEqual([link]);
  });
});

describe('pretrain', () => {
  it('pretrains a tiny model, stops with a checkpoint, resumes and writes the folder, metrics, lineage and card', async () => {
    const { dir, file } = writeCorpus('pretrain', 30);
    const vocab = writeTinyVocab(dir);
    const out = path.join(dir, 'mlm');
    const args = { preset: 'small-2L-128', vocab, text: [file], out, steps: 6, batchSize: 4, maxLength: 32, checkpointEvery: 2, evalBlocks: 4, lr: 1e-3 };
    const first = await pretrain(args, stopAfter(2));
    expect(first.status).toBe('cancelled');
    expect(existsSync(path.join(out, 'checkpoint', 'state.json'))).toBe(true);
    const events: TaskEvent[] = [];
    const second = await pretrain(args, { emit: (e) => events.push(e), isCancelled: () => false });
    expect(second.status).toBe('completed');
    expect(events.some((e) => e.type === 'log' && /resuming from the checkpoint at step 2/.test(e.message))).toBe(true);
    expect(second.evalLoss).toBeGreaterThan(0);
    const model = loadHfFolder(out);
    expect(model.config.task).toBe('masked-lm');
    const lineage = JSON.parse(readFileSync(path.join(out, 'lineage.json'), 'utf8')) as { phi_status: string; entries: { kind: string }[] };
    expect(lineage.phi_status).toBe('no-phi');
    expect(lineage.entries.map((e) => e.kind)).toEqual(['pretrain']);
    for (const f of ['lineage.json', 'metrics.json', 'README.md']) expect(readFileSync(path.join(out, f), 'utf8')).not.toContain(dir);
    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8')) as { steps: number; resumed_from_step: number };
    expect(metrics.steps).toBe(6);
    expect(metrics.resumed_from_step).toBe(2);
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toMatch(/Privacy and lineage/);
    expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
    // A finished model, or a folder holding anything of the user's, is never replaced silently.
    await expect(pretrain(args)).rejects.toThrow(/mlm: folder is not empty .*pass --overwrite/);
    const mine = path.join(dir, 'mine');
    mkdirSync(mine);
    writeFileSync(path.join(mine, 'notes.txt'), 'keep');
    await expect(pretrain({ ...args, out: mine })).rejects.toThrow(/mine: folder is not empty \(notes\.txt\)/);
    expect(readFileSync(path.join(mine, 'notes.txt'), 'utf8')).toBe('keep');
  }, 60_000);

  it.skipIf(missingGpuLibrary() === null)('says why --device webgpu pretrains on the CPU, in its log and its progress', async () => {
    const { dir, file } = writeCorpus('pretrain-device', 8);
    const events: TaskEvent[] = [];
    const args = { preset: 'small-2L-128', vocab: writeTinyVocab(dir), text: [file], out: path.join(dir, 'gpu'), steps: 1, batchSize: 2, maxLength: 24, evalBlocks: 2, device: 'webgpu' as const };
    expect((await pretrain(args, { emit: (e) => events.push(e), isCancelled: () => false })).status).toBe('completed');
    const reason = 'WebGPU unavailable (no Vulkan loader, libvulkan.so.1, is installed); using the CPU';
    expect(events.some((e) => e.type === 'log' && e.message === reason)).toBe(true);
    expect(events.filter((e) => e.type === 'progress').map((e) => e.type === 'progress' && [e.device, e.deviceNote])).toEqual([['cpu', reason]]);
  });

  it('notes in its log a text file read as Windows-1252 because it is not UTF-8', async () => {
    const { dir, file } = writeCorpus('pretrain-latin', 8);
    const latin = path.join(dir, 'latin.txt');
    writeFileSync(latin, Buffer.from(readFileSync(file, 'utf8').replace(/\./g, ' caf\u00e9.'), 'latin1'));
    const events: TaskEvent[] = [];
    const args = { preset: 'small-2L-128', vocab: writeTinyVocab(dir), text: [latin], out: path.join(dir, 'latin-model'), steps: 1, batchSize: 2, maxLength: 24, evalBlocks: 1, checkpointEvery: 0 };
    expect((await pretrain(args, { emit: (e) => events.push(e), isCancelled: () => false })).status).toBe('completed');
    expect(events.filter((e) => e.type === 'log' && e.message.includes('Windows-1252')).map((e) => e.type === 'log' && e.message)).toEqual([
      `note: ${latin}: not valid UTF-8; decoded as Windows-1252 (Latin-1)`,
    ]);
  });

  it('continued pretraining of a model with added tokens records them on its card and saves them for every transformers', async () => {
    const { dir, file } = writeCorpus('pretrain-added', 8);
    const base = writeGoldenFolder(path.join(dir, 'base'), 5, withDecoder(DECODER));
    await pretrain({ text: [file], steps: 1, batchSize: 2, maxLength: 32, checkpointEvery: 0, evalBlocks: 1, model: base, out: path.join(dir, 'more') });
    const lineage = JSON.parse(readFileSync(path.join(dir, 'more', 'lineage.json'), 'utf8')) as { vocabulary: { added?: number } };
    expect(lineage.vocabulary.added).toBe(5);
    expect(readFileSync(path.join(dir, 'more', 'README.md'), 'utf8')).toContain('it is not a vocabulary Benchtop ships (and the tokenizer adds 5 tokens after it)');
    expect(Object.keys(JSON.parse(readFileSync(path.join(dir, 'more', 'added_tokens.json'), 'utf8')) as object)).toHaveLength(5);
  }, 60_000);

  it('continued pretraining keeps the PHI status of the weights it starts from', async () => {
    const { dir, file } = writeCorpus('pretrain-base', 8);
    const args = { text: [file], steps: 1, batchSize: 2, maxLength: 32, checkpointEvery: 0, evalBlocks: 1 };
    await pretrain({ ...args, preset: 'small-2L-128', vocab: writeTinyVocab(dir), out: path.join(dir, 'base') });
    // The base model as a folder fine-tuned on private notes would declare itself.
    writeFileSync(path.join(dir, 'base', 'lineage.json'), JSON.stringify({ phi_status: 'trained-on-phi', statement: '', entries: [] }));
    await pretrain({ ...args, model: path.join(dir, 'base'), out: path.join(dir, 'more') });
    const lineage = JSON.parse(readFileSync(path.join(dir, 'more', 'lineage.json'), 'utf8')) as { phi_status: string; entries: { kind: string; source: string }[] };
    expect(lineage.phi_status).toBe('trained-on-phi');
    expect(lineage.entries[0]).toMatchObject({ kind: 'base-model', source: 'continued from the weights of model "base" (its lineage.json says trained-on-phi)' });
  }, 60_000);

  it('records text declared as holding patient information (--text-contains-phi) as PHI in the lineage and card', async () => {
    const { dir, file } = writeCorpus('pretrain-phi', 8);
    const argv = ['pretrain', '--preset', 'small-2L-128', '--vocab', writeTinyVocab(dir), '--text', file, '--steps', '1', '--batch-size', '2', '--max-length', '32', '--checkpoint-every', '0'];
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await main([...argv, '--text-contains-phi', '--out', path.join(dir, 'notes-model')])).toBe(0);
      expect(await main([...argv, '--out', path.join(dir, 'public-model')])).toBe(0);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    type Record = { phi_status: string; entries: { source: string; containsPhi: boolean }[] };
    const lineage = (m: string): Record => JSON.parse(readFileSync(path.join(dir, m, 'lineage.json'), 'utf8')) as Record;
    expect(lineage('notes-model')).toMatchObject({ phi_status: 'trained-on-phi', entries: [{ source: `text "${path.basename(file)}" (declared as holding patient information)`, containsPhi: true }] });
    expect(readFileSync(path.join(dir, 'notes-model', 'README.md'), 'utf8')).toContain('**Status: trained on PHI');
    expect(lineage('public-model')).toMatchObject({ phi_status: 'no-phi', entries: [{ containsPhi: false }] });
  }, 60_000);

  it('records a no-dropout, sinusoidal-position recipe, and refuses a position init when continuing a model', async () => {
    const { dir, file } = writeCorpus('pretrain-recipe', 12);
    const vocab = writeTinyVocab(dir);
    const args = { preset: 'small-2L-128', vocab, text: [file], steps: 3, batchSize: 4, maxLength: 32, checkpointEvery: 0, evalBlocks: 2, lr: 1e-3, dropout: false, sinusoidalPositions: true };
    const a = await pretrain({ ...args, out: path.join(dir, 'a') });
    const metrics = JSON.parse(readFileSync(path.join(dir, 'a', 'metrics.json'), 'utf8')) as { settings: Record<string, unknown> };
    expect(metrics.settings).toMatchObject({ dropout: false, position_init: 'sinusoidal' });
    expect(readFileSync(path.join(dir, 'a', 'README.md'), 'utf8')).toMatch(/no dropout, sinusoidal position init/);
    // Trained from the sinusoidal start: row 0 is still close to (0, 0.02·√2, 0, 0.02·√2, …).
    const pos = loadHfFolder(path.join(dir, 'a')).weights.get('bert.embeddings.position_embeddings.weight')?.data as Float32Array;
    expect(pos[1]).toBeGreaterThan(0.02);
    expect(Math.abs(pos[0] ?? 1)).toBeLessThan(0.01);
    const b = await pretrain({ ...args, out: path.join(dir, 'b') });
    expect(b.evalLoss).toBe(a.evalLoss);
    await expect(pretrain({ text: [file], out: path.join(dir, 'c'), model: path.join(dir, 'a'), sinusoidalPositions: true })).rejects.toThrow(/does not apply when continuing/);
  }, 60_000);

  it('refuses a learning rate outside (0, 1] before any work, as train does', async () => {
    // At --lr 1e3 pretraining used to finish with losses of about 2e11 and save that model.
    const { dir, file } = writeCorpus('pretrain-lr', 12);
    const vocab = writeTinyVocab(dir);
    const args = { preset: 'small-2L-128', vocab, text: [file], steps: 2, batchSize: 4, maxLength: 32, checkpointEvery: 0, evalBlocks: 0 };
    for (const lr of [1e3, 1.5, 0, -1e-4, Number.NaN, Number.POSITIVE_INFINITY]) {
      const out = path.join(dir, `lr-${lr}`);
      await expect(pretrain({ ...args, lr, out })).rejects.toThrow(`--lr must be a number > 0 and ≤ 1, got ${lr}`);
      expect(existsSync(out), `${lr}: nothing written`).toBe(false);
    }
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const out = path.join(dir, 'cli');
      expect(await main(['pretrain', '--preset', 'small-2L-128', '--vocab', vocab, '--text', file, '--steps', '2', '--lr', '1e3', '--out', out])).toBe(2); // a usage mistake, as --lr abc
      expect(err.mock.calls.flat().join('\n')).toMatch('--lr must be a number > 0 and ≤ 1, got 1000');
      expect(existsSync(out)).toBe(false);
    } finally {
      err.mockRestore();
    }
  });
});
