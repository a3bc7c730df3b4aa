// The fingerprints written beside a model find the same private documents as their texts do, in
// a file of about 2.4 bytes per word; a damaged file is refused, naming it, never read as empty; a
// file written before sentence hashes were kept is still read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPubtator } from '../formats/pubtator.ts';
import { runCli } from '../cli/test-helpers.ts';
import { makeFifo } from '../io/test-helpers.ts';
import { recordFingerprintsInWorker } from '../tasks/jobs.ts';
import { FINGERPRINT_FILE, fingerprintBytes, readFingerprintFile, startingFingerprints, writeFingerprintFile } from './fingerprint-file.ts';
import { fingerprintBytesV1 } from './test-helpers.ts';
import { privateFingerprints } from './text-overlap.ts';

const NCBI = path.resolve(import.meta.dirname, '../../../shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
const notes = importPubtator(readFileSync(NCBI, 'utf8'), NCBI).documents.map((d) => d.text);
const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-fingerprint-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the fingerprint file', () => {
  it('finds what the texts find, and holds about 2.4 bytes per word', () => {
    const size = writeFingerprintFile(dir, notes);
    expect(readFileSync(path.join(dir, FINGERPRINT_FILE)).length).toBe(size);
    const words = notes.join(' ').split(/\s+/).length;
    expect(size / words).toBeGreaterThan(1);
    expect(size / words).toBeLessThan(3);
    const fromFile = privateFingerprints([], [readFingerprintFile(dir)!]);
    const fromTexts = privateFingerprints(notes);
    const rewrapped = notes.slice(0, 5).map((n) => n.toUpperCase().replace(/(.{40,60}) /g, '$1\n'));
    for (const fp of [fromFile, fromTexts]) {
      expect(fp.containedIn(rewrapped, 0.6).copied.length).toBe(5);
      expect(fp.isWhole(notes[9]!.toLowerCase())).toBe(true);
      expect(fp.containedIn(['The river runs past the old mill and into the sea on a grey morning in May.'], 0.6).copied).toEqual([]);
    }
    // Sentences are recorded too: every other one of five notes, scattered among other text.
    const scattered = notes.slice(20, 25).flatMap((n) => n.split(/(?<=[.!?])\s+/).filter((_, i) => i % 2 === 0)).map((t) => `${t} The harbour was busy with boats and gulls all that mild grey day.`);
    // (Notes 20 and 22 have too few sentences of 10 words or more for 35% of them to count.)
    for (const fp of [fromFile, fromTexts]) expect(fp.containedIn(scattered, 0.6).scattered.map((p) => p.document).sort()).toEqual([21, 23, 24]);
    // Texts and a recorded set together: documents of both are found.
    expect(privateFingerprints(['A note written today about the ward round and the new rota for nurses.'], [readFingerprintFile(dir)!]).containedIn([notes[1]!], 0.6).copied).toEqual([{ set: 1, document: 1, part: 0, parts: 1 }]);
  });

  it('carries the starting model’s fingerprints after the new documents, each still found', () => {
    const start = path.join(dir, 'start');
    mkdirSync(start);
    writeFingerprintFile(start, notes.slice(0, 10));
    const inherited = startingFingerprints(start);
    const own = ['A note written today about the ward round and the new rota for nurses on the night shift.'];
    const merged = path.join(dir, 'merged');
    mkdirSync(merged);
    writeFileSync(path.join(merged, FINGERPRINT_FILE), fingerprintBytes(own, inherited));
    const set = readFingerprintFile(merged)!;
    expect(set.counts.length).toBe(11);
    const fp = privateFingerprints([], [set]);
    expect(fp.containedIn([own[0]!.toUpperCase(), notes[3]!.replace(/(.{40,60}) /g, '$1\n')], 0.6).copied.length).toBe(2);
    expect(fp.isWhole(notes[9]!)).toBe(true);
    expect(startingFingerprints(undefined)).toEqual([]);
    expect(startingFingerprints(path.join(dir, 'none'))).toEqual([]);
    writeFileSync(path.join(merged, FINGERPRINT_FILE), 'damaged');
    expect(() => startingFingerprints(merged)).toThrow(`${path.join(merged, FINGERPRINT_FILE)}: is not a Benchtop fingerprint file; it lists the fingerprints of the private documents this starting model learned from`);
  });

  it('reads a file written before sentences were kept (version 1): its runs still find a copy; distill warns it finds no scattered sentences', async () => {
    const v1 = fingerprintBytesV1(notes.slice(0, 10));
    const old = path.join(dir, 'v1');
    mkdirSync(old);
    writeFileSync(path.join(old, FINGERPRINT_FILE), v1);
    const set = readFingerprintFile(old)!;
    expect([set.counts.length, set.sentences.length, Math.max(...set.sentenceCounts)]).toEqual([10, 0, 0]);
    const found = privateFingerprints([], [set]).containedIn([notes[3]!.toUpperCase().replace(/(.{40,60}) /g, '$1\n')], 0.6);
    expect(found).toEqual({ copied: [{ set: 1, document: 3, part: 0, parts: 1 }], scattered: [] });
    // It cannot find scattered sentences: distill says so in one line, naming the file and what to do.
    const transfer = path.join(dir, 'weather.txt');
    writeFileSync(transfer, 'The river runs past the old mill and into the sea on a grey morning in May.\n');
    const distill = (teacher: string): Promise<{ output: string }> => runCli(['distill', '--task', 'ner', '--teacher', teacher, '--transfer', transfer, '--student-preset', 'small-2L-128', '--steps', '1', '--out', path.join(dir, 'student')]);
    const warnings = (await distill(old)).output.split('\n').filter((l) => l.includes('warning:'));
    expect(warnings).toEqual([
      `warning: ${path.join(old, FINGERPRINT_FILE)} was written before 2026-11-24 and records no sentences of the teacher's private training documents, so the transfer check cannot find those sentences copied scattered through other text (whole copies are still found); train the teacher again to record them`,
    ]);
    // distill-general checks its --text the same way and says the same (it dropped the warning).
    const general = await runCli(['distill-general', '--teacher', old, '--student-preset', 'small-2L-128', '--recipe', 'compactbiobert', '--text', transfer, '--steps', '1', '--out', path.join(dir, 'general')]);
    expect(general.output.split('\n').filter((l) => l.includes('warning:'))).toEqual(warnings);
    const recent = path.join(dir, 'v2');
    mkdirSync(recent);
    writeFingerprintFile(recent, notes.slice(0, 10));
    expect((await distill(recent)).output).not.toContain('warning:');
  });

  it('is absent without a file; refuses one that is damaged, cut short or not a file', () => {
    expect(readFingerprintFile(path.join(dir, 'none'))).toBeUndefined();
    const good = readFileSync(path.join(dir, FINGERPRINT_FILE));
    const variant = (name: string, bytes: Buffer | string): string => {
      const d = path.join(dir, name);
      mkdirSync(d);
      writeFileSync(path.join(d, FINGERPRINT_FILE), bytes);
      return d;
    };
    const message = (d: string): string => {
      try {
        readFingerprintFile(d);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    const cut = variant('cut', good.subarray(0, good.length - 8));
    expect(message(cut)).toBe(`${path.join(cut, FINGERPRINT_FILE)}: is cut short or damaged (${good.length - 8} bytes); it lists the fingerprints of the teacher's private training documents, which the transfer check needs. Copy the teacher's folder again from Benchtop's data folder (models/), or train the teacher again`);
    expect(message(variant('text', 'not fingerprints'))).toMatch(/: is not a Benchtop fingerprint file;/);
    expect(message(variant('empty', ''))).toMatch(/: is not a Benchtop fingerprint file;/);
    const counts = Buffer.from(good);
    counts.writeUInt32LE(counts.readUInt32LE(24) + 1, 24); // the first document's count of runs
    expect(message(variant('counts', counts))).toMatch(/: is damaged \(its counts do not add up\)/);
    const nan = Buffer.from(good);
    nan.writeDoubleLE(Number.NaN, good.length - 8);
    expect(message(variant('nan', nan))).toMatch(/: is damaged \(a hash is not a whole number\)/);
    const fifo = path.join(dir, 'fifo');
    mkdirSync(fifo);
    makeFifo(path.join(fifo, FINGERPRINT_FILE));
    expect(message(fifo)).toMatch(/: is not a file;/);
  });

  it('is written from a run’s snapshot in a worker: the engine’s thread goes on meanwhile', async () => {
    const runDir = path.join(dir, 'run');
    mkdirSync(path.join(runDir, 'out'), { recursive: true });
    // About 1.9 million words (20 copies of the notes): half a second or more of hashing.
    const many = Array.from({ length: 20 }, (_, k) => notes.map((text) => ({ text: `${k} ${text}` }))).flat();
    writeFileSync(path.join(runDir, 'data.json'), JSON.stringify({ train: many.slice(100), dev: many.slice(0, 50), private: many.slice(50, 100) }));
    let turns = 0;
    const timer = setInterval(() => turns++, 10);
    try {
      await recordFingerprintsInWorker(runDir, path.join(runDir, 'out'));
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThanOrEqual(5);
    writeFingerprintFile(path.join(dir, 'same'), [...many.slice(100), ...many.slice(0, 100)].map((d) => d.text));
    expect(readFileSync(path.join(runDir, 'out', FINGERPRINT_FILE)).equals(readFileSync(path.join(dir, 'same', FINGERPRINT_FILE)))).toBe(true);
  }, 60_000);
});
