// The task CLI end to end through main(): train ner → eval --json → predict over a messy mixed
// folder (PubTator + brat with a bad offset + empty text + unknown format + a 200 MB file),
// train re on a TSV with a malformed line → eval re --json with AUROC, and the refusals
// (unknown labels, non-empty output folder, usage errors).

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  conllSubset,
  DATA,
  HAS_DATA,
  tempDir,
  tsvSubset,
  VOCAB,
  removeTempDirs,
} from '../tasks/test-helpers.ts';
import { missingGpuLibrary } from '../runtime/gpu-library.ts';
import { main } from './main.ts';
import { cliContext, formatIssue } from './task-commands.ts';

afterAll(removeTempDirs);

let stdout: string[] = [];
let stderr: string[] = [];

beforeEach(() => {
  stdout = [];
  stderr = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void stdout.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void stderr.push(a.join(' ')));
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (s: string | Uint8Array) => stderr.push(String(s)) > 0,
  );
});
afterEach(() => vi.restoreAllMocks());

const TINY = ['--preset', 'small-2L-128', '--vocab', VOCAB, '--batch-size', '16', '--seed', '1'];

describe.skipIf(!HAS_DATA)('benchtop train / eval / predict', () => {
  const dir = tempDir('cli');
  const model = path.join(dir, 'ner-model');

  it('trains NER, evaluates it as JSON and predicts over a mixed folder', async () => {
    const train = conllSubset(
      path.join(DATA, 'ner', 'ncbi-disease', 'train.tsv'),
      0,
      48,
      dir,
      'train.tsv',
    );
    const dev = conllSubset(
      path.join(DATA, 'ner', 'ncbi-disease', 'devel.tsv'),
      0,
      12,
      dir,
      'dev.tsv',
    );
    expect(
      await main([
        'train',
        'ner',
        ...TINY,
        '--train',
        train,
        '--dev',
        dev,
        '--out',
        model,
        '--epochs',
        '2',
        '--max-steps',
        '3',
        '--no-dropout',
      ]),
    ).toBe(0);
    expect(stdout.join('\n')).toMatch(/^max-steps: saved .*ner-model \(3 steps/);
    expect(readdirSync(model).sort()).toEqual([
      'config.json',
      'metrics.json',
      'model.safetensors',
      'private-fingerprints.bin',
      'special_tokens_map.json',
      'tokenizer_config.json',
      'training_card.md',
      'vocab.txt',
    ]);

    stdout = [];
    expect(await main(['eval', 'ner', '--model', model, '--data', dev, '--json'])).toBe(0);
    const m = JSON.parse(stdout.join('\n')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(m).slice(0, 3)).toEqual(['micro', 'macro', 'per_type']);
    expect(Object.keys(m['micro'] ?? {})).toEqual(['precision', 'recall', 'f1']);
    expect(Object.keys(m['macro'] ?? {})).toEqual(['precision', 'recall', 'f1']);
    expect(Object.keys(m['per_type'] ?? {})).toEqual(['Disease']);
    expect(m['int8']).toBeUndefined();
    stdout = [];
    expect(await main(['eval', 'ner', '--model', model, '--data', dev, '--json', '--int8'])).toBe(0);
    expect((JSON.parse(stdout.join('\n')) as { int8?: unknown }).int8).toBe(true);

    const input = path.join(dir, 'mixed');
    mkdirSync(input);
    const pubtator = readFileSync(
      path.join(DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt'),
      'utf8',
    )
      .split(/\n\s*\n/)
      .filter((b) => b.trim());
    writeFileSync(path.join(input, 'abstracts.pubtator'), `${pubtator.slice(0, 3).join('\n\n')}\n`);
    writeFileSync(path.join(input, 'note.txt'), 'Patient with breast cancer and diabetes.\n');
    writeFileSync(
      path.join(input, 'note.ann'),
      'T1\tDisease 13 26\tbreast cancer\nT2\tDisease 31 35\tdiabetes\n',
    );
    writeFileSync(path.join(input, 'empty.txt'), '');
    writeFileSync(path.join(input, 'table.xyz'), 'x');
    writeFileSync(path.join(input, 'huge.txt'), '');
    truncateSync(path.join(input, 'huge.txt'), 200 * 1024 * 1024);
    const out = path.join(dir, 'pred-brat');
    stdout = [];
    expect(
      await main(['predict', '--model', model, '--input', input, '--out', out, '--format', 'brat']),
    ).toBe(0);
    const err = stderr.join('');
    expect(err).toMatch(/huge\.txt: error: file is 200\.0 MB, beyond the 100\.0 MB limit/);
    expect(err).toMatch(
      /note\.ann:2: warning: entity T2: mention text does not match the text at its offsets/,
    );
    expect(err).toMatch(/table\.xyz: (error|warning): unsupported file format/);
    expect(err.match(/empty document/g)).toHaveLength(1); // once, under its file
    expect(err).toMatch(/empty\.txt: warning: document empty: empty document/);
    expect(stdout.join('\n')).toMatch(
      /: 5 documents, \d+ entit(y|ies), 0 relations; [\d.]+ documents\/s, \d+ words\/s/,
    );
    const files = readdirSync(out).sort();
    expect(files.filter((f) => f.endsWith('.ann'))).toHaveLength(5);
    expect(files.some((f) => f.includes('.tmp'))).toBe(false);
    // One document, no relation: counted in the singular where it is one.
    stdout = [];
    const one = path.join(dir, 'one.jsonl');
    expect(await main(['predict', '--model', model, '--input', path.join(input, 'note.txt'), '--out', one, '--format', 'jsonl'])).toBe(0);
    const entities = (JSON.parse(readFileSync(one, 'utf8')) as { entities: unknown[] }).entities.length;
    expect(stdout.join('\n')).toContain(`: 1 document, ${entities} ${entities === 1 ? 'entity' : 'entities'}, 0 relations; `);
  });

  it.skipIf(missingGpuLibrary() === null)('says why --device webgpu runs on the CPU, and refuses an unknown device', async () => {
    const train = conllSubset(path.join(DATA, 'ner', 'ncbi-disease', 'train.tsv'), 0, 16, dir, 'gpu-train.tsv');
    const out = path.join(dir, 'gpu-model');
    const reason = 'WebGPU unavailable (no Vulkan loader, libvulkan.so.1, is installed); using the CPU';
    expect(await main(['train', 'ner', ...TINY, '--train', train, '--out', out, '--max-steps', '1', '--device', 'webgpu'])).toBe(0);
    expect([...stdout, ...stderr].join('\n')).toContain(reason);
    stdout = [];
    stderr = [];
    expect(await main(['eval', 'ner', '--model', out, '--data', train, '--device', 'webgpu'])).toBe(0);
    expect([...stdout, ...stderr].join('\n')).toContain(reason);
    stderr = [];
    expect(await main(['eval', 'ner', '--model', out, '--data', train, '--device', 'gpu'])).not.toBe(0);
    expect(stderr.join('')).toContain('--device must be cpu or webgpu, got "gpu"');
  });

  it('trains RE on a TSV with a malformed line and evaluates it with AUROC', async () => {
    const train = tsvSubset(
      path.join(DATA, 're', 'gad-fold1', 'train.tsv'),
      20,
      60,
      dir,
      'gad.tsv',
      false,
    );
    writeFileSync(train, `${readFileSync(train, 'utf8')}this line has no label\n`);
    const test = tsvSubset(
      path.join(DATA, 're', 'gad-fold1', 'test.tsv'),
      10,
      40,
      dir,
      'gad-test.tsv',
      true,
    );
    const out = path.join(dir, 're-model');
    expect(
      await main([
        'train',
        're',
        ...TINY,
        '--train',
        train,
        '--out',
        out,
        '--epochs',
        '1',
        '--max-length',
        '64',
      ]),
    ).toBe(0);
    expect(stderr.join('')).toContain(
      `${train}:61: error: expected 2 tab-separated columns, got 1; line skipped`,
    );
    stdout = [];
    expect(await main(['eval', 're', '--model', out, '--data', test, '--json'])).toBe(0);
    const m = JSON.parse(stdout.join('\n')) as { micro: object; per_type: object; auroc: number };
    expect(Object.keys(m.per_type)).toEqual(['1']);
    expect(m.auroc).toBeGreaterThanOrEqual(0);
  });

  it('trains RE on PubTator documents and predicts relations with --re-model', async () => {
    const docs = readFileSync(
      path.join(DATA, 'documents', 'pubtator-bc5cdr', 'CDR_TrainingSet.PubTator.txt'),
      'utf8',
    )
      .split(/\n\s*\n/)
      .filter((b) => b.trim());
    const file = path.join(dir, 'cdr.pubtator');
    writeFileSync(file, `${docs.slice(0, 12).join('\n\n')}\n`);
    const out = path.join(dir, 'cdr-re');
    expect(
      await main([
        'train',
        're',
        ...TINY,
        '--train',
        file,
        '--out',
        out,
        '--epochs',
        '1',
        '--max-steps',
        '2',
        '--max-length',
        '64',
      ]),
    ).toBe(0);
    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8')) as {
      model: { labels: string[] };
      data: { split: string };
    };
    expect(metrics.model.labels).toEqual(['false', 'CID']);
    stdout = [];
    expect(await main(['eval', 're', '--model', out, '--data', file, '--json'])).toBe(0);
    expect(Object.keys((JSON.parse(stdout.join('\n')) as { per_type: object }).per_type)).toEqual([
      'CID',
    ]);
    // The model relates mask types (CHEMICAL); its note names them as the data does, not in capitals.
    expect(stderr.join('')).toMatch(/cdr\.pubtator: warning: \d+ of \d+ annotated relations are not scored: .*, of the types it relates \(Chemical–Disease\)/);
    stdout = [];
    const pred = path.join(dir, 'cdr-pred.bioc.xml');
    expect(
      await main([
        'predict',
        '--model',
        model,
        '--re-model',
        out,
        '--input',
        file,
        '--out',
        pred,
        '--format',
        'bioc-xml',
      ]),
    ).toBe(0);
    expect(stdout.join('\n')).toMatch(/: 12 documents, \d+ entit(y|ies), 0 relations/);
    expect(readFileSync(pred, 'utf8')).toMatch(/^<\?xml/);
    // The NCBI model finds only Disease, so no Chemical–Disease pair can be formed: said up front.
    expect(stderr.join('')).toMatch(/cdr-re: warning: this relation model relates [^;]*chemical–disease[^;]*, but the entity model finds only Disease; no relation can be predicted/i);
  });

  it('refuses unknown labels, a used output folder and bad usage', async () => {
    const bc5 = conllSubset(path.join(DATA, 'ner', 'bc5cdr', 'train.tsv'), 0, 20, dir, 'bc5.tsv');
    expect(
      await main(['train', 'ner', '--model', model, '--train', bc5, '--out', path.join(dir, 'x')]),
    ).toBe(1);
    expect(stderr.join('')).toMatch(
      /label\(s\) B-Chemical, I-Chemical in the training data are unknown to .*ner-model, which predicts O, B-Disease, I-Disease/,
    );
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
    expect(await main(['train', 'ner', ...TINY, '--train', bc5, '--out', model])).toBe(1);
    expect(stderr.join('')).toMatch(/ner-model: folder is not empty .* pass --overwrite/);
    expect(await main(['train', 'ner', '--train', bc5, '--out', path.join(dir, 'y')])).toBe(2);
    expect(
      await main([
        'predict',
        '--model',
        model,
        '--input',
        bc5,
        '--out',
        path.join(dir, 'p'),
        '--format',
        'xml',
      ]),
    ).toBe(2);
    expect(stderr.join('')).toMatch(/--format must be one of jsonl, brat/);
    // Predictions never land on the input or over existing files without --overwrite.
    const gold = path.join(dir, 'gold');
    mkdirSync(gold);
    writeFileSync(path.join(gold, 'doc.txt'), 'Aspirin causes asthma.');
    writeFileSync(path.join(gold, 'doc.ann'), 'T1\tDisease 15 21\tasthma\n');
    const args = ['predict', '--model', model, '--input', gold, '--format', 'brat', '--out'];
    expect(await main([...args, gold, '--overwrite'])).toBe(1);
    expect(stderr.join('')).toMatch(/gold: this is the input; writing predictions there would replace your documents/);
    expect(await main([...args, dir, '--overwrite'])).toBe(1);
    expect(readFileSync(path.join(gold, 'doc.ann'), 'utf8')).toBe('T1\tDisease 15 21\tasthma\n');
    const jsonl = path.join(dir, 'pred.jsonl');
    writeFileSync(jsonl, 'mine');
    expect(await main(['predict', '--model', model, '--input', gold, '--format', 'jsonl', '--out', jsonl])).toBe(1);
    expect(stderr.join('')).toMatch(/pred\.jsonl: already exists; choose another file name, or pass --overwrite to replace it/);
    const used = path.join(dir, 'used-brat');
    mkdirSync(used);
    writeFileSync(path.join(used, 'mine.txt'), 'mine');
    expect(await main([...args, used])).toBe(1);
    expect(stderr.join('')).toMatch(/used-brat: folder is not empty \(1 entries\); .*, or pass --overwrite to replace files of the same names/);
    expect(readFileSync(jsonl, 'utf8')).toBe('mine');
    expect(await main(['predict', '--model', model, '--input', gold, '--format', 'jsonl', '--out', jsonl, '--overwrite'])).toBe(0);
    expect(readFileSync(jsonl, 'utf8')).toContain('Aspirin causes asthma.');
    // Evaluation data without gold annotations is refused instead of scoring F1 = 0.
    const plain = path.join(dir, 'plain-note.txt');
    writeFileSync(plain, 'Aspirin causes asthma.');
    expect(await main(['eval', 'ner', '--model', model, '--data', plain])).toBe(1);
    expect(stderr.join('')).toMatch(/plain-note\.txt: none of the 1 document has annotated entities, so there is nothing to score against/);
    // TINY without its --batch-size: a flag given twice with different values is its own refusal.
    const unbatched = TINY.filter((a, i) => a !== '--batch-size' && TINY[i - 1] !== '--batch-size');
    expect(await main(['train', 'ner', ...unbatched, '--train', bc5, '--out', path.join(dir, 'z'), '--batch-size', '0'])).toBe(2);
    expect(stderr.join('')).toMatch(/--batch-size must be a whole number from 1 to 1024, got 0/);
    expect(await main(['train', 'ner', ...TINY, '--train', bc5, '--out', path.join(dir, 'z'), '--warmup-ratio', '2'])).toBe(2);
    expect(stderr.join('')).toMatch(/--warmup-ratio must be a number from 0 to 1, got 2/);
    expect(await main(['train', 'ner', ...TINY, '--train', bc5, '--out', path.join(dir, 'z'), '--threads', '100000'])).toBe(2);
    expect(stderr.join('')).toMatch(/--threads must be a whole number from 1 to 256, got 100000/);
    expect(existsSync(path.join(dir, 'z'))).toBe(false);
    // init-model refuses a folder that holds anything else.
    const kept = path.join(dir, 'kept');
    mkdirSync(kept);
    writeFileSync(path.join(kept, 'notes.txt'), 'keep');
    expect(await main(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--labels', 'O,B-X,I-X', '--out', kept])).toBe(1);
    expect(stderr.join('')).toMatch(/kept: folder is not empty \(notes\.txt\)/);
    expect(readdirSync(kept)).toEqual(['notes.txt']);
  });
});

describe('issue lines', () => {
  it('keep a file name with a newline or other control characters on one line', () => {
    const line = formatIssue({
      severity: 'error',
      file: 'notes/evil\nbenchtop: error: fake.txt',
      message: 'document a\r\x1b[2Jb: empty document',
    });
    expect(line).toBe('notes/evil\\nbenchtop: error: fake.txt: error: document a\\r\\x1b[2Jb: empty document');
    expect(formatIssue({ severity: 'warning', file: 'ünï 😀.txt', line: 3, message: 'ok' })).toBe('ünï 😀.txt:3: warning: ok');
  });
});

describe('the scores brat and PubTator have no place for', () => {
  it('are a note, not a warning among the problems; other warnings stay warnings', () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream;
    const ctx = cliContext(stream);
    ctx.emit({ type: 'issue', issue: { severity: 'warning', file: 'brat export', message: '27 entity scores dropped' } });
    ctx.emit({ type: 'issue', issue: { severity: 'warning', file: 'pubtator export', message: '1 relation score dropped' } });
    ctx.emit({ type: 'issue', issue: { severity: 'warning', file: 'brat export', message: '2 discontinuous entities dropped' } });
    ctx.close();
    expect(written.join('').split('\n')).toEqual([
      'brat export: note: 27 entity scores left out, as the format has no place for them; every entity found is written (jsonl and bioc keep the scores)',
      'pubtator export: note: 1 relation score left out, as the format has no place for it; every relation found is written (jsonl and bioc keep the scores)',
      'brat export: warning: 2 discontinuous entities dropped',
      '',
    ]);
  });
});

describe('progress lines in a log (not a terminal)', () => {
  it('print the finished count once, though the last batch and its chunk both report it', () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream;
    const ctx = cliContext(stream);
    ctx.emit({ type: 'infer-progress', phase: 'ner', done: 2, total: 2 });
    ctx.emit({ type: 'infer-progress', phase: 'ner', done: 2, total: 2 });
    ctx.emit({ type: 'infer-progress', phase: 're', done: 3, total: 3 });
    ctx.close();
    expect(written.join('')).toBe('entities: 2/2 inputs\nrelations: 3/3 inputs\n');
  });

  it('print the first training progress at once, then at most every 10 seconds', () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream;
    const now = vi.spyOn(performance, 'now');
    try {
      const ctx = cliContext(stream);
      const progress = (step: number, at: number): void => {
        now.mockReturnValue(at);
        ctx.emit({ type: 'progress', epoch: 1, step, totalSteps: 10, loss: 1, lr: 1e-4, stepsPerSec: 2, etaSec: 5, device: 'cpu' });
      };
      progress(1, 2_000); // a process 2 s old: its first step
      progress(2, 11_000);
      progress(3, 12_500);
      ctx.close();
      expect(written.join('').split('\n').map((l) => /^epoch 1 \[[#-]+\] (\d+)\/10/.exec(l)?.[1])).toEqual(['1', '3', undefined]);
    } finally {
      now.mockRestore();
    }
  });
});
