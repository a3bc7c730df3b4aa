import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';

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
      expect(await main(['distill-general', '--teacher', 't', '--student-preset', 'p', '--recipe', 'bogus', '--text', 'x', '--out', 'o'])).toBe(2);
      const out = mkdtempSync(path.join(os.tmpdir(), 'benchtop-distill-cli-'));
      try {
        const privateOnly = ['distill', '--task', 'ner', '--teacher', 't', '--transfer', 'random', '--student-preset', 'small-2L-128', '--private-data', 'p.tsv', '--out', path.join(out, 's')];
        expect(await main(privateOnly)).toBe(1);
        expect(readdirSync(out)).toEqual([]);
        // onnxruntime starts every thread asked for (100000 took 16 GB): refused before any work.
        const distill = ['distill', '--task', 'ner', '--teacher', 't', '--transfer', 'random', '--student-preset', 'small-2L-128', '--out', path.join(out, 's')];
        expect(await main([...distill, '--threads', '100000'])).toBe(1);
        expect(await main([...distill, '--test', path.join(out, 'tset.tsv')])).toBe(1);
        // A second way of starting the student, or a flag for another way, was ignored without a word.
        const fromFolder = ['distill', '--task', 'ner', '--teacher', 't', '--transfer', 'random', '--student', 's', '--out', path.join(out, 's')];
        expect(await main([...fromFolder, '--init-from-teacher'])).toBe(2);
        expect(await main([...fromFolder, '--student-preset', 'small-2L-128'])).toBe(2);
        expect(await main([...fromFolder, '--layer-map', '0'])).toBe(2);
        expect(await main([...fromFolder, '--arch', 'distilbert'])).toBe(2);
        expect(await main(['pretrain', '--preset', 'small-2L-128', '--text', 'x', '--out', path.join(out, 'p'), '--threads', '0'])).toBe(1);
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
