// A workbench training run hashed its documents' words twice: train() wrote the fingerprints with
// the model (and its kept checkpoint/best), then the run's registration hashed the same snapshot
// again (about 4 s per 10 million words). train() now says which texts it fingerprinted and the
// registration keeps that file when they are the snapshot's; a run that wrote none, or other
// texts, still gets them at registration.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importPubtator } from '../formats/pubtator.ts';
import type { Document } from '../formats/types.ts';
import { DATA, HAS_DATA, VOCAB, removeTempDirs, tempDir } from '../tasks/test-helpers.ts';
import { train, type TrainResult } from '../tasks/train-task.ts';
import { FINGERPRINT_FILE, fingerprintBytes, readFingerprintFile, textsDigest, writeRunFingerprints } from './fingerprint-file.ts';
import * as overlap from './text-overlap.ts';

// Every hashing of documents' words goes through fingerprintSet: count its calls.
vi.mock('./text-overlap.ts', async (importOriginal) => {
  const real = await importOriginal<typeof overlap>();
  return { ...real, fingerprintSet: vi.fn(real.fingerprintSet) };
});
const hashed = vi.mocked(overlap.fingerprintSet);

afterAll(removeTempDirs);

describe.skipIf(!HAS_DATA)('a workbench run’s fingerprints', () => {
  const dir = tempDir('run-fingerprints');
  const runDir = path.join(dir, 'run');
  const out = path.join(runDir, 'out');
  const file = path.join(out, FINGERPRINT_FILE);
  let docs: Document[] = [];
  let texts: string[] = [];
  let r: TrainResult;

  beforeAll(async () => {
    const ncbi = readFileSync(path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt'), 'utf8');
    docs = importPubtator(ncbi, 'notes.pubtator').documents.slice(0, 16);
    texts = docs.map((d) => d.text);
    mkdirSync(runDir);
    // The snapshot as the launcher writes it (run-launcher.ts), and the run as it starts it.
    const data = { train: docs.slice(0, 12), dev: docs.slice(12) };
    writeFileSync(path.join(runDir, 'data.json'), JSON.stringify(data));
    hashed.mockClear();
    r = await train({ task: 'ner', trainDocuments: data.train, devDocuments: data.dev, out, preset: 'small-2L-128', vocab: VOCAB, batchSize: 8, maxLength: 48, maxSteps: 2, checkpointEvery: 1, evalEvery: 1, overwrite: true, resume: 'never' });
  }, 120_000);

  it('are hashed once, by the run, and kept at registration: the file is the documents’ fingerprints', () => {
    expect(r.status).toBe('max-steps');
    // Once for the kept checkpoint/best and the model alike.
    expect(hashed).toHaveBeenCalledTimes(1);
    expect(r.fingerprinted).toBe(textsDigest(texts));
    writeRunFingerprints(runDir, out, r.fingerprinted);
    expect(hashed).toHaveBeenCalledTimes(1);
    expect(readFileSync(file).equals(fingerprintBytes(texts))).toBe(true);
  });

  it('are written at registration for a run that wrote none, or other texts', () => {
    // An older run, or a crash before the model was written: no word of the run's file.
    rmSync(file);
    hashed.mockClear();
    writeRunFingerprints(runDir, out);
    expect(hashed).toHaveBeenCalledTimes(1);
    expect(readFileSync(file).equals(fingerprintBytes(texts))).toBe(true);
    // A file of the training notes alone, said to be theirs: not the snapshot's, so written again.
    const trainOnly = texts.slice(0, 12);
    writeFileSync(file, fingerprintBytes(trainOnly));
    hashed.mockClear();
    writeRunFingerprints(runDir, out, textsDigest(trainOnly));
    expect(hashed).toHaveBeenCalledTimes(1);
    expect(readFileSync(file).equals(fingerprintBytes(texts))).toBe(true);
    // The snapshot's digest with a file that does not hold one entry per document: written again.
    writeFileSync(file, fingerprintBytes(trainOnly));
    writeRunFingerprints(runDir, out, textsDigest(texts));
    expect(readFileSync(file).equals(fingerprintBytes(texts))).toBe(true);
  });

  // A run started from a PHI-bearing model (this run's model, with the notes' fingerprints): its
  // model keeps them after its own documents' even when the run wrote no file (until 2026-11-24
  // they were dropped here, so a re-wrapped copy of those notes passed when the model taught).
  it('of a run that wrote none keep those of the model it started from', () => {
    expect(r.status).toBe('max-steps');
    const inherited = readFingerprintFile(out)!;
    const next = path.join(dir, 'next');
    const nextOut = path.join(next, 'out');
    mkdirSync(nextOut, { recursive: true });
    const own = texts.slice(0, 4).map((t) => `${t} Seen again.`);
    writeFileSync(path.join(next, 'data.json'), JSON.stringify({ train: own.map((text) => ({ text })) }));
    writeRunFingerprints(next, nextOut, undefined, out);
    const nextFile = path.join(nextOut, FINGERPRINT_FILE);
    expect(readFileSync(nextFile).equals(fingerprintBytes(own, [inherited]))).toBe(true);
    // A distillation without private documents: only what it inherited.
    writeFileSync(path.join(next, 'data.json'), '{}');
    rmSync(nextFile);
    writeRunFingerprints(next, nextOut, undefined, out);
    expect(readFileSync(nextFile).equals(fingerprintBytes([], [inherited]))).toBe(true);
    // A starting model that is gone: an error naming it, and no file that would pass for complete.
    rmSync(nextFile);
    const gone = path.join(dir, 'removed-model');
    expect(() => writeRunFingerprints(next, nextOut, undefined, gone)).toThrow(`${gone}: the model this run started from is gone`);
    expect(existsSync(nextFile)).toBe(false);
  });
});
