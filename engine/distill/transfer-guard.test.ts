import { createHash } from 'node:crypto';
import type * as Fs from 'node:fs';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeCorpus, writeTinyVocab } from '../pretrain/test-corpus.ts';
import { distillTask } from './task-distill.ts';
import { hashFiles } from './lineage.ts';
import { FINGERPRINT_FILE, writeFingerprintFile } from './fingerprint-file.ts';
import { checkTransferNotPrivate, privateFileTexts } from './transfer-guard.ts';

// The engine's file reads, watched (each still reads the real file): how a large file is read.
const reads = vi.hoisted(() => ({ opened: new Map<number, string>(), sizes: new Map<string, number[]>(), whole: [] as string[] }));
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof Fs>();
  const openSync = (...a: Parameters<typeof Fs.openSync>): number => {
    const fd = actual.openSync(...a);
    reads.opened.set(fd, String(a[0]));
    return fd;
  };
  const readSync = (fd: number, buf: NodeJS.ArrayBufferView, offset = 0, length?: number, position?: Fs.ReadPosition | null): number => {
    const file = reads.opened.get(fd);
    if (file !== undefined) reads.sizes.set(file, [...(reads.sizes.get(file) ?? []), Math.min(length ?? buf.byteLength, buf.byteLength - offset)]);
    return actual.readSync(fd, buf, offset, length ?? buf.byteLength - offset, position ?? null);
  };
  const readFileSync = ((file: Fs.PathOrFileDescriptor, options?: unknown) => {
    reads.whole.push(String(file));
    return actual.readFileSync(file, options as BufferEncoding);
  }) as typeof Fs.readFileSync;
  const fs = { ...actual, openSync, readSync, readFileSync };
  return { ...fs, default: fs };
});

const NOTE = 'Patient Jane Roe was admitted with acute kidney failure.\nShe also has asthma since childhood.\n';

/** A teacher folder whose metrics.json records `train` as its training data, as `train` writes it. */
function setup(tag: string): { dir: string; teacher: string; notes: string; note: string; public: string } {
  const { dir, file } = writeCorpus(tag, 2);
  const notes = path.join(dir, 'notes');
  mkdirSync(notes);
  const note = path.join(notes, 'n1.txt');
  writeFileSync(note, NOTE);
  const teacher = path.join(dir, 'teacher');
  mkdirSync(teacher);
  const sha256 = createHash('sha256').update(NOTE).digest('hex');
  writeFileSync(path.join(teacher, 'metrics.json'), JSON.stringify({ data: { train: [{ path: note, sha256, bytes: NOTE.length }], dev: [], test: [] } }));
  return { dir, teacher, notes, note, public: file };
}

describe('transfer text that is private data', () => {
  it("is refused when it is the teacher's recorded training data, through a link or as a copy", () => {
    const s = setup('guard-teacher');
    expect(() => checkTransferNotPrivate([s.notes], { teacher: s.teacher })).toThrow(`${s.note}: this transfer file is the teacher's train data (same file); transfer text must hold no private data: remove it from --transfer`);
    const link = path.join(s.dir, 'innocent-looking');
    symlinkSync(s.notes, link);
    expect(() => checkTransferNotPrivate([link], { teacher: s.teacher })).toThrow(/innocent-looking\/n1\.txt: this transfer file is the teacher's train data \(same file\)/);
    const copy = path.join(s.dir, 'copy.txt');
    writeFileSync(copy, `\ufeff${NOTE}`);
    expect(() => checkTransferNotPrivate([copy], { teacher: s.teacher })).toThrow(/copy\.txt: this transfer file is the teacher's train data \(same content\)/);
    expect(() => checkTransferNotPrivate([s.public], { teacher: s.teacher })).not.toThrow();
  });

  it('is refused when it is the private labelled set or a text the caller marks as PHI; the message never quotes it', () => {
    const s = setup('guard-private');
    const priv = path.join(s.dir, 'private');
    mkdirSync(priv);
    writeFileSync(path.join(priv, 'a.txt'), NOTE);
    const err = (() => {
      try {
        checkTransferNotPrivate([s.note], { teacher: path.join(s.dir, 'elsewhere'), privateData: priv });
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(err).toMatch(/n1\.txt: this transfer file is the private labelled data \(--private-data\) \(same content\)/);
    expect(err).not.toMatch(/Jane|kidney/);
    const phi = [createHash('sha256').update(NOTE, 'utf8').digest('hex')];
    expect(() => checkTransferNotPrivate([s.notes], { teacher: path.join(s.dir, 'elsewhere'), privateSha256: phi })).toThrow(/a document marked as containing PHI/);
  });

  it("names the teacher's training documents by file and id, for a refusal to say which one a transfer file repeats", async () => {
    const s = setup('guard-names');
    expect(await privateFileTexts({ teacher: s.teacher })).toEqual([{ name: `document "n1" of ${s.note}`, text: NOTE }]);
  });

  it("names the workbench's private documents mixed in by their datasets and place, never their text", async () => {
    const s = setup('guard-mixed-in');
    const notes = [
      'Mr Roe was seen on the ward round today; his kidney function has improved on fluids and the catheter was removed without trouble.',
      'Mrs Doe came back to clinic with a cough for three weeks; her chest film shows a small effusion that will be drained on Friday.',
    ];
    const pasted = path.join(s.dir, 'pasted.txt');
    writeFileSync(pasted, `The harbour was busy with boats all that mild grey day. ${notes[1]} Gulls circled over the old mill.\n`);
    const privateDocuments = notes.map((text, i) => ({ id: String(40 + i), text, entities: [], relations: [] }));
    const args = { task: 'ner' as const, teacher: path.join(s.dir, 'elsewhere'), studentPreset: 'small-2L-128', transfer: pasted, privateDocuments, alpha: 0.5, dataLabel: 'Ward 5', out: path.join(s.dir, 'student') };
    const refused = distillTask(args);
    await expect(refused).rejects.toThrow(/pasted\.txt: this transfer file repeats the text of private documents \(it holds most of the text of document 2 of the private documents \(Ward 5\)\)/);
    await expect(refused).rejects.not.toThrow(/Doe|effusion/);
  });

  it('names the private document a line of a transfer file is, or the fingerprint file that records it', () => {
    const s = setup('guard-whole');
    const notes = ['Seen today with asthma and a fever, no rash.', 'Admitted overnight with chest pain; troponin normal, sent home.'];
    const lines = path.join(s.dir, 'lines.txt');
    writeFileSync(lines, `The harbour was busy with boats all day.\n${notes[1]!.toUpperCase()}\n`);
    const elsewhere = path.join(s.dir, 'elsewhere');
    expect(() => checkTransferNotPrivate([lines], { teacher: elsewhere, privateTexts: notes })).toThrow('(one of its lines or paragraphs is private document 2)');
    expect(() => checkTransferNotPrivate([lines], { teacher: elsewhere, privateTexts: [{ name: 'document "n7" of notes.jsonl', text: notes[1]! }] })).toThrow('(one of its lines or paragraphs is document "n7" of notes.jsonl)');
    writeFingerprintFile(s.teacher, notes);
    expect(() => checkTransferNotPrivate([lines], { teacher: s.teacher })).toThrow(`(one of its lines or paragraphs is a document recorded in ${path.join(s.teacher, FINGERPRINT_FILE)})`);
  });

  it('stops distill before the teacher is read', async () => {
    const s = setup('guard-distill');
    writeTinyVocab(s.dir);
    await expect(distillTask({ task: 'ner', teacher: s.teacher, studentPreset: 'small-2L-128', transfer: `general,${s.notes}`, out: path.join(s.dir, 'student') })).rejects.toThrow(/n1\.txt: this transfer file is the teacher's train data/);
  });

  it("stops distill when the transfer text repeats the teacher's training notes in another layout", async () => {
    const s = setup('guard-layout');
    writeTinyVocab(s.dir);
    const exported = path.join(s.dir, 'notes.jsonl');
    writeFileSync(exported, `${JSON.stringify({ id: 'n1', text: NOTE.replace('\n', ' ') })}\n`);
    const args = { task: 'ner' as const, teacher: s.teacher, studentPreset: 'small-2L-128', transfer: `general,${exported}`, out: path.join(s.dir, 'student') };
    await expect(distillTask(args)).rejects.toThrow(/notes\.jsonl: this transfer file repeats the text of private documents/);
    // So is a copy of the private labelled set given with --private-data.
    const elsewhere = path.join(s.dir, 'elsewhere');
    await expect(distillTask({ ...args, teacher: elsewhere, privateData: s.note, alpha: 0.5 })).rejects.toThrow(/notes\.jsonl: this transfer file repeats/);
  });

  it("stops distill when the teacher's metrics.json cannot be read as a training record, naming it and what is wrong", async () => {
    const s = setup('guard-damaged-record');
    writeTinyVocab(s.dir);
    const metrics = path.join(s.teacher, 'metrics.json');
    // Cut short: the check of the transfer text against the teacher's training files was skipped.
    writeFileSync(metrics, JSON.stringify({ data: { train: [{ path: s.note }] } }).slice(0, 30));
    const args = { task: 'ner' as const, teacher: s.teacher, studentPreset: 'small-2L-128', transfer: `general,${s.notes}`, out: path.join(s.dir, 'student') };
    await expect(distillTask(args)).rejects.toThrow(`${metrics}: is not valid JSON (`);
    await expect(distillTask(args)).rejects.toThrow(/Copy the teacher's folder again from Benchtop's data folder \(models\/\), or train the teacher again; if the folder holds a model Benchtop did not make, remove this metrics\.json$/);
    expect(existsSync(args.out)).toBe(false);
    const refused: [unknown, string][] = [
      [[], 'must be a JSON object (a run\'s record), but holds a list'],
      [{ data: 'train.jsonl' }, '"data" must be an object with "train", "dev" and "test" lists, but holds a string'],
      [{ data: { train: s.note } }, '"data.train" must be a list of files, but holds a string'],
      [{ data: { dev: [null] } }, 'entry 1 of "data.dev" holds null'],
      [{ data: { train: [{ path: s.note }, { path: 7 }] } }, 'entry 2 of "data.train" has a "path" that is a number'],
      [{ data: { test: [{ sha256: 'abc' }] } }, 'entry 1 of "data.test" has a "sha256" that is not 64 hexadecimal digits'],
      [{ data: { train: [{ bytes: 3 }] } }, 'entry 1 of "data.train" names no file (no "path" or "sha256")'],
    ];
    for (const [record, reason] of refused) {
      writeFileSync(metrics, JSON.stringify(record));
      expect(() => checkTransferNotPrivate([s.public], { teacher: s.teacher }), reason).toThrow(`${metrics}: ${reason}; it lists the teacher's training`);
    }
    // A record of a run without labelled data (pretrain, distill) and a folder without one (Hugging Face) have nothing to compare.
    writeFileSync(metrics, JSON.stringify({ kind: 'pretrain', steps: 2 }));
    expect(() => checkTransferNotPrivate([s.notes], { teacher: s.teacher })).not.toThrow();
    rmSync(metrics);
    expect(() => checkTransferNotPrivate([s.notes], { teacher: s.teacher })).not.toThrow();
  });

  it('checks and hashes a transfer file larger than one read, a chunk at a time (readFileSync fails past 2 GiB)', () => {
    const s = setup('guard-huge');
    // 3.4 MB of text: four reads of at most 1 MB each, never one of the whole file.
    const text = 'A public sentence about the weather and the sea.\n'.repeat(70_000);
    const big = path.join(s.dir, 'big-corpus.txt');
    writeFileSync(big, text);
    const readsOf = (f: () => unknown): number[] => {
      reads.sizes.delete(big);
      f();
      return reads.sizes.get(big) ?? [];
    };
    // Both read the whole file with readFileSync, which failed: "File size (…) is greater than 2 GiB".
    const checked = readsOf(() => expect(() => checkTransferNotPrivate([big], { teacher: s.teacher })).not.toThrow());
    let hash = '';
    const hashed = readsOf(() => (hash = hashFiles([big])));
    expect(hash, 'hashFiles: the name and every byte').toBe(createHash('sha256').update('big-corpus.txt').update(text).digest('hex'));
    for (const [what, sizes] of [['check', checked], ['hash', hashed]] as const) {
      expect(sizes.length, `${what}: reads of the file`).toBeGreaterThanOrEqual(4);
      expect(Math.max(...sizes), `${what}: the largest read`).toBeLessThanOrEqual(2 ** 20);
    }
    expect(reads.whole.filter((f) => f === big), 'files read whole').toEqual([]);
    // Hashed a chunk at a time with its byte-order mark left out: a marked copy of a recorded file is still that file.
    const sha256 = createHash('sha256').update(text).digest('hex');
    writeFileSync(path.join(s.teacher, 'metrics.json'), JSON.stringify({ data: { train: [{ sha256 }], dev: [], test: [] } }));
    writeFileSync(big, `\ufeff${text}`);
    expect(() => checkTransferNotPrivate([big], { teacher: s.teacher })).toThrow(/big-corpus\.txt: this transfer file is the teacher's train data \(same content\)/);
  });
});
