// documents:export writes, in every format, the very bytes it wrote when it built each output
// whole in memory (before exports were streamed): real corpora from ../shared/data (PubTator
// NCBI-disease and BC5CDR, the GAD relation set as CSV, NCBI-disease CoNLL) and fixtures that
// hit what each format cannot hold (discontinuous entities, attributes, scores, metadata,
// astral characters, XML-invalid characters, odd ids). The SHA-256 of each output was recorded
// with that export (commit 05df3fe); the BioC date (the day of the export) is masked. Since
// imports skip a document without text, the fixtures' hashes are 05df3fe's export of the same
// documents less the one of only spaces (recorded with 05df3fe's code on that input). CoNLL of
// documents without sentence passages (ncbi, bc5cdr, gad) was recorded again when its blocks
// became the tasks' sentences, equal to exportConll's whole output of the imported documents.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportFormat } from './contract.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const DATA = resolve(import.meta.dirname, '../../../shared/data');
const FORMATS: ExportFormat[] = ['pubtator', 'brat', 'bioc-xml', 'bioc-json', 'conll', 'jsonl', 'csv'];

const RICH = [
  {
    id: 'r1',
    text: 'Aspirin\nreduces fever in 😀 patients; <b>&"x"</b>\u0001 ok.\n',
    entities: [
      { id: 'T1', type: 'Chemical', start: 0, end: 7, text: 'Aspirin', norm_ids: ['MeSH:D001241'], score: 0.9 },
      { id: 'X2', type: 'Disease name', spans: [[16, 21], [25, 26]], text: 'fever 😀', attributes: { Negated: 'true', sev: 'high val' } },
      { id: 'T3', type: 'Disease', start: 16, end: 21, text: 'fever', attributes: { type: 'x' } },
      { id: 'T4', type: 'Misc', start: 27, end: 35, text: 'patients' },
    ],
    relations: [
      { id: 'R1', type: 'treats', arg1: 'T1', arg2: 'T3', score: 0.5 },
      { id: 'Q', type: 'Equiv', arg1: 'T3', arg2: 'T4' },
      { id: 'C1', type: 'CID', arg1: 'MeSH:D001241', arg2: 'MeSH:D005334', by_concept: true },
    ],
    passages: [{ type: 'title', start: 0, end: 7 }, { type: 'abstract', start: 8, end: 56 }],
    metadata: { source: '=cmd()', text: 'clash', site: 'A, B' },
  },
  { id: 'r|2\tx', text: '   ', entities: [], relations: [] }, // no text: skipped on import
  {
    id: 'r3',
    text: 'Second doc. Same start.\r\nLine two',
    entities: [{ id: 'e', type: 'A', start: 0, end: 6, text: 'Second' }, { id: 'f', type: 'B', start: 0, end: 11, text: 'Second doc.' }],
    relations: [],
    passages: [{ type: 'sentence', start: 0, end: 11 }, { type: 'sentence', start: 12, end: 23 }],
    metadata: { note: '- dash' },
  },
  { id: '../evil/.. name', text: 'Tabs\there and \u2028 sep', entities: [{ id: 'T9', type: 'X', start: 0, end: 4, text: 'Tabs' }], relations: [] },
];

const BRAT_TXT = 'Aspirin did not reduce fever and chills in 😀 adults.\n';
const BRAT_ANN = [
  'T1\tChemical 0 7\tAspirin',
  'T2\tDisease 23 28;33 39\tfever chills',
  'T5\tDisease 23 28\tfever',
  'A1\tNegated T2',
  'A2\tSeverity T5 high',
  'N1\tReference T1 MeSH:D001241\tAspirin',
  'R1\tNegTreat Arg1:T1 Arg2:T5',
  '*\tEquiv T2 T5',
  '',
].join('\n');

/** What each project is made of: files imported into it, one dataset each. */
function corpora(dir: string): Record<string, { path: string; format?: 'csv' | 'conll' }[]> {
  const rich = join(dir, 'rich.jsonl');
  writeFileSync(rich, RICH.map((r) => JSON.stringify(r) + '\n').join(''));
  const brat = join(dir, 'brat-set');
  mkdirSync(brat);
  writeFileSync(join(brat, 'hand.txt'), BRAT_TXT);
  writeFileSync(join(brat, 'hand.ann'), BRAT_ANN);
  writeFileSync(join(brat, 'plain.txt'), 'No annotations here.\n');
  writeFileSync(join(brat, 'plain.ann'), '');
  return {
    ncbi: [{ path: `${DATA}/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt` }],
    bc5cdr: [{ path: `${DATA}/documents/pubtator-bc5cdr/CDR_TrainingSet.PubTator.txt` }],
    gad: [{ path: `${DATA}/re/gad-fold1/test.tsv`, format: 'csv' }],
    conll: [{ path: `${DATA}/ner/ncbi-disease/test.tsv`, format: 'conll' }],
    fixtures: [{ path: rich }, { path: brat }],
  };
}

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
const undated = (text: string): string => text.replace(/<date>\d{8}<\/date>/, '<date>00000000</date>').replace(/"date": "\d{8}"/, '"date": "00000000"');

/** A short hash of an export: the file, or each .txt/.ann of a brat folder by name. */
function outputHash(path: string): string {
  if (!statSync(path).isDirectory()) return sha(undated(readFileSync(path, 'utf8')));
  const names = readdirSync(path).sort();
  return sha(names.map((n) => `${n}\0${readFileSync(join(path, n), 'utf8')}\0`).join(''));
}

/** Recorded before streaming: `<output hash> <issues hash>` per corpus and format. */
const EXPECTED: Record<string, string> = {
  'ncbi pubtator': '1a2516d810815681 4f53cda18c2baa0c',
  'ncbi brat': '81eb5de93cbda131 e8923e99f611a33f',
  'ncbi bioc-xml': '32bd31b2db9c771b 4f53cda18c2baa0c',
  'ncbi bioc-json': 'e653c6d23f0f5a7f 4f53cda18c2baa0c',
  'ncbi conll': '0e2f15386c719689 423fce4e3199aea2',
  'ncbi jsonl': 'd21a30fd08ce9db5 4f53cda18c2baa0c',
  'ncbi csv': '614ecf48210d238b e896e2ed8a85a128',
  'bc5cdr pubtator': 'fb00f93b06ca946d 4f53cda18c2baa0c',
  'bc5cdr brat': 'd9cb876267462849 8759ef28e3a9ea32',
  'bc5cdr bioc-xml': 'eef4e32154d47067 4f53cda18c2baa0c',
  'bc5cdr bioc-json': '2f30f8047683fc4f 4f53cda18c2baa0c',
  'bc5cdr conll': '426a3265a5bfddc7 3af245977be63ed3',
  'bc5cdr jsonl': 'd497c457fe71ba21 4f53cda18c2baa0c',
  'bc5cdr csv': '048f64c6ed6fce5e e896e2ed8a85a128',
  'gad pubtator': '9372ac9e6bee24ad 26a9466533e044d3',
  'gad brat': 'abae012d09af2491 4985495ec1e2ae55',
  'gad bioc-xml': '2d0c07b2c1758319 4f53cda18c2baa0c',
  'gad bioc-json': '916834e034579239 4f53cda18c2baa0c',
  'gad conll': '77077192b1d18d9d e6b9a506d1196bfe',
  'gad jsonl': '644feee48ae87d3c 4f53cda18c2baa0c',
  'gad csv': 'e5be485fd654dfd1 1865415194f2611d',
  'conll pubtator': '90973a1e035d46be f41d687b3e0a00ab',
  'conll brat': '6167b0a2277d71fb 4051cbb4135062cb',
  'conll bioc-xml': 'acd4869a891e9856 4f53cda18c2baa0c',
  'conll bioc-json': '065f3d105e6d79ff 4f53cda18c2baa0c',
  'conll conll': '8f088ce45dc47465 bc054f21949d13f2',
  'conll jsonl': '31309ed744cba7cc 4f53cda18c2baa0c',
  'conll csv': 'bc1644dbb1660ffd e896e2ed8a85a128',
  'fixtures pubtator': '4d7410746b7d7468 166f7b639edcfdc8',
  'fixtures brat': 'd06a4d1a7c175c7f 85be60bc29fe46af',
  'fixtures bioc-xml': 'e6207f13a6057aa7 975a9d34834c4a11',
  'fixtures bioc-json': 'e2d963c030bd97ed 99c666753687491f',
  'fixtures conll': '44b66ff989c136b9 84c9827c8450d110',
  'fixtures jsonl': '473d5c4b0446a29c 4f53cda18c2baa0c',
  'fixtures csv': '3ee21442ac58bb77 e81b25a724cd754e',
};

let t: TestEngine;
let dir: string;
const actual: Record<string, string> = {};

beforeAll(async () => {
  t = openTestEngine('benchtop-export-formats-');
  dir = mkdtempSync(join(tmpdir(), 'benchtop-export-formats-out-'));
  for (const [name, inputs] of Object.entries(corpora(dir))) {
    const projectId = (await t.call('projects:create', { name })).id;
    for (const input of inputs) await t.call('documents:import', { projectId, containsPhi: false, ...input });
    for (const format of FORMATS) {
      const outPath = join(dir, `${name}-out`, format === 'brat' ? 'brat' : `out.${format}`);
      const report = await t.call('documents:export', { projectId, format, outPath });
      actual[`${name} ${format}`] = `${outputHash(outPath)} ${sha(JSON.stringify(report.issues))}`;
    }
  }
}, 300_000);
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('documents:export writes what it wrote before it streamed', () => {
  it.each(FORMATS)('%s, on every corpus', (format) => {
    const pick = (m: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(m).filter(([k]) => k.endsWith(` ${format}`)));
    expect(Object.keys(pick(actual))).toHaveLength(5);
    expect(pick(actual)).toEqual(pick(EXPECTED));
  });
});
