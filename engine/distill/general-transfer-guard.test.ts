// distill-general checks its --text as distill checks --transfer: a masked-LM teacher pretrained
// on text declared as PHI keeps that text's fingerprints, and a re-wrapped copy of it given as
// the student's text (recorded as holding no PHI) is refused; other text passes, and text
// declared as PHI is taken (the student is then recorded as trained on PHI).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as cli } from '../cli/test-helpers.ts';
import { importPubtator } from '../formats/pubtator.ts';
import { writeTinyVocab } from '../pretrain/test-corpus.ts';
import { FINGERPRINT_FILE } from './fingerprint-file.ts';

const DATA = path.resolve(import.meta.dirname, '../../../shared/data');
const NCBI = path.join(DATA, 'documents/pubtator-ncbi/NCBIdevelopset_corpus.txt');
const notes = importPubtator(readFileSync(NCBI, 'utf8'), NCBI).documents.slice(0, 20).map((d) => d.text);
const dir = mkdtempSync(path.join(tmpdir(), 'benchtop-general-guard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


const FAST = ['--steps', '1', '--batch-size', '2', '--max-length', '24'];
const lineage = (folder: string): { phi_status: string } => JSON.parse(readFileSync(path.join(folder, 'lineage.json'), 'utf8')) as { phi_status: string };

describe('distill-general from a teacher pretrained on PHI text', () => {
  it('refuses a re-wrapped copy of that text, takes other text, and PHI text declared as such', async () => {
    const phi = path.join(dir, 'ward-notes.txt');
    writeFileSync(phi, `${notes.join('\n')}\n`); // a note a line
    const teacher = path.join(dir, 'teacher');
    const pretrained = await cli(['pretrain', '--preset', 'small-2L-128', '--vocab', writeTinyVocab(dir), '--text', phi, '--text-contains-phi', ...FAST, '--out', teacher]);
    expect(pretrained).toMatchObject({ code: 0, errors: '' });
    expect(lineage(teacher).phi_status).toBe('trained-on-phi');
    expect(readdirSync(teacher)).toContain(FINGERPRINT_FILE);
    expect(readFileSync(path.join(teacher, FINGERPRINT_FILE)).toString('latin1')).not.toContain(notes[0]!.slice(0, 20));

    const copy = path.join(dir, 'letters.txt');
    writeFileSync(copy, notes.slice(0, 6).map((n) => n.toUpperCase().replace(/(.{50,70}) /g, '$1\n')).join('\n\n') + '\n');
    const general = ['distill-general', '--teacher', teacher, '--student-preset', 'small-2L-128', '--recipe', 'compactbiobert', ...FAST];
    const refused = await cli([...general, '--text', copy, '--out', path.join(dir, 's1')]);
    expect(refused.code).toBe(1);
    const recorded = path.join(teacher, FINGERPRINT_FILE); // names the document by its place there, never by its text
    expect(refused.errors).toContain(`${copy}: this text file repeats the text of private documents (it holds most of the text of document 1 recorded in ${recorded} (its part 1 of 2, about 1,000 words each), and 10 more); transfer text must hold no private data: remove it from --text, or give --text-contains-phi (the student is then recorded as trained on PHI)`);
    expect(existsSync(path.join(dir, 's1'))).toBe(false);

    const wiki = path.join(dir, 'wiki.txt');
    writeFileSync(wiki, readFileSync(path.join(DATA, 'text/general/wiki.valid.tokens'), 'utf8').slice(0, 40_000));
    expect(await cli([...general, '--text', wiki, '--out', path.join(dir, 's2')])).toMatchObject({ code: 0, errors: '' });
    expect(lineage(path.join(dir, 's2')).phi_status).toBe('distilled-from-phi-teacher');
    expect(readdirSync(path.join(dir, 's2'))).not.toContain(FINGERPRINT_FILE);

    expect(await cli([...general, '--text', copy, '--text-contains-phi', '--out', path.join(dir, 's3')])).toMatchObject({ code: 0, errors: '' });
    expect(lineage(path.join(dir, 's3')).phi_status).toBe('trained-on-phi');
    expect(readdirSync(path.join(dir, 's3'))).toContain(FINGERPRINT_FILE);
  }, 120_000);
});
