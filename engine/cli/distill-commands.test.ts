import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { conllSubset, DATA, HAS_DATA, randomTaskModel, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { main } from './main.ts';
import { sourceList } from './distill-commands.ts';

afterAll(removeTempDirs);

describe('distill / pretrain / distill-general CLI', () => {
  it('lists the commands in the help and rejects bad usage with exit code 2', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await main(['--help'])).toBe(0);
      const help = log.mock.calls.map((c) => String(c[0])).join('\n');
      for (const cmd of ['benchtop distill --task', 'benchtop pretrain', 'benchtop distill-general']) expect(help).toContain(cmd);
      expect(await main(['distill', '--task', 'pos', '--teacher', 't', '--transfer', 'general', '--out', 'o', '--student-preset', 'small-2L-128'])).toBe(2);
      expect(await main(['distill', '--task', 'ner', '--transfer', 'general', '--out', 'o', '--student-preset', 'small-2L-128'])).toBe(2);
      expect(await main(['pretrain', '--text', 'x', '--out', 'o'])).toBe(2);
      expect(await main(['distill-general', '--teacher', 't', '--student-preset', 'small-2L-128', '--recipe', 'bogus', '--text', 'x', '--out', 'o'])).toBe(2);
      const out = mkdtempSync(path.join(os.tmpdir(), 'benchtop-distill-cli-'));
      try {
        const privateOnly = ['distill', '--task', 'ner', '--teacher', 't', '--transfer', 'random', '--student-preset', 'small-2L-128', '--private-data', 'p.tsv', '--out', path.join(out, 's')];
        expect(await main(privateOnly)).toBe(2);
        expect(readdirSync(out)).toEqual([]);
        // onnxruntime starts every thread asked for (100000 took 16 GB): refused before any work.
        const distill = ['distill', '--task', 'ner', '--teacher', 't', '--transfer', 'random', '--student-preset', 'small-2L-128', '--out', path.join(out, 's')];
        expect(await main([...distill, '--threads', '100000'])).toBe(2);
        expect(await main([...distill, '--test', path.join(out, 'tset.tsv')])).toBe(1);
        // A second way of starting the student, or a flag for another way, was ignored without a word.
        const fromFolder = ['distill', '--task', 'ner', '--teacher', 't', '--transfer', 'random', '--student', 's', '--out', path.join(out, 's')];
        expect(await main([...fromFolder, '--init-from-teacher'])).toBe(2);
        expect(await main([...fromFolder, '--student-preset', 'small-2L-128'])).toBe(2);
        expect(await main([...fromFolder, '--layer-map', '0'])).toBe(2);
        expect(await main([...fromFolder, '--arch', 'distilbert'])).toBe(2);
        expect(await main(['pretrain', '--preset', 'small-2L-128', '--text', 'x', '--out', path.join(out, 'p'), '--threads', '0'])).toBe(2);
        expect(readdirSync(out)).toEqual([]);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
      const messages = err.mock.calls.map((c) => String(c[0])).join('\n');
      expect(messages).toMatch(/--private-data needs --alpha A \(0 < A < 1: the share of steps on the private set\)/);
      expect(messages).toMatch(/--task must be ner or re/);
      expect(messages).toMatch(/--threads must be a whole number from 1 to 256, got 100000/);
      expect(messages).toMatch(/--threads must be a whole number from 1 to 256, got 0/);
      expect(messages).toMatch(/tset\.tsv: no such file or folder/);
      expect(messages).toMatch(/--student DIR starts the student from that folder; leave out --student-preset and --init-from-teacher, or --student/);
      expect(messages).toMatch(/--layer-map goes with --init-from-teacher/);
      expect(messages).toMatch(/--arch goes with --student-preset/);
      expect(messages).toMatch(/missing required option --teacher/);
      expect(messages).toMatch(/give --model DIR \(continual pretraining\) or --preset NAME/);
      expect(messages).toMatch(/--recipe must be one of distilbiobert, tinybert, compactbiobert/);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  });
});

describe.runIf(HAS_DATA)('distill --test', () => {
  it("prints the student's test F1, as train prints its own, and its help says what is scored", async () => {
    const dir = tempDir('distill-test');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
    const test = conllSubset(path.join(DATA, 'ner', 'ncbi-disease', 'devel.tsv'), 0, 6, dir, 'test.tsv', true);
    const out = path.join(dir, 'student');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main(['distill', '--task', 'ner', '--teacher', teacher, '--transfer', 'random', '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--test', test, '--out', out]);
      expect(err.mock.calls).toEqual([]);
      expect(code).toBe(0);
      const f1 = (JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8')) as { test: { micro: { f1: number } } }).test.micro.f1;
      // The score was only filed in metrics.json: the line said "done: OUT (1 steps; no PHI …)".
      expect(log.mock.calls.map((c) => String(c[0])).join('\n')).toContain(`done: ${out} (1 step; test F1 ${f1.toFixed(4)}; `);
      log.mockClear();
      expect(await main(['distill', '--help'])).toBe(0);
      // It said "score teacher and student", but the teacher was never scored.
      expect(String(log.mock.calls[0]?.[0])).toMatch(/--test PATH\s+annotated data to score the student on at the end/);
    } finally {
      log.mockRestore();
      err.mockRestore();
      write.mockRestore();
    }
  }, 60_000);
});

describe('--transfer and --text lists', () => {
  it('keep a file or folder whose name holds a comma whole, and split the rest at commas', () => {
    const dir = tempDir('comma-sources');
    const notes = path.join(dir, 'notes, 2024');
    mkdirSync(notes);
    // It was split into ".../notes" and "2024" and refused: "…/notes: no such file or folder".
    expect(sourceList(notes)).toEqual([notes]);
    expect(sourceList(`general, ${notes},random`)).toEqual(['general', notes, 'random']);
    expect(sourceList('general,random-shuffle , ')).toEqual(['general', 'random-shuffle']);
    expect(sourceList(`${path.join(dir, 'gone')}, 2024`)).toEqual([path.join(dir, 'gone'), '2024']);
  });

  it.runIf(HAS_DATA)('distill reads a --transfer folder named with a comma', async () => {
    const dir = tempDir('comma-transfer');
    const teacher = randomTaskModel(path.join(dir, 'teacher'), { task: 'ner', maxLength: 32 }, ['O', 'B-Disease', 'I-Disease']);
    const text = path.join(dir, 'leaflets, 2024');
    mkdirSync(text);
    writeFileSync(path.join(text, 'a.txt'), readFileSync(path.join(DATA, 'text', 'general', 'wiki.valid.tokens'), 'utf8').slice(0, 20_000));
    const out = path.join(dir, 'student');
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main(['distill', '--task', 'ner', '--teacher', teacher, '--transfer', `${text},random`, '--student-preset', 'small-2L-128', '--steps', '1', '--batch-size', '2', '--out', out]);
      expect(err.mock.calls).toEqual([]);
      expect(code).toBe(0);
      const m = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8')) as { transfer: { sources: { name: string }[] } };
      expect(m.transfer.sources.map((x) => x.name)).toEqual(['leaflets, 2024', 'random']);
    } finally {
      err.mockRestore();
      log.mockRestore();
      write.mockRestore();
    }
  }, 60_000);
});
