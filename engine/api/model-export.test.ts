// models:export: a library or shipped model copied out as a Hugging Face folder that loads back
// with the same weights (and the same logits from its model.onnx), carrying a lineage.json that
// says whether it learned from patient data; refused targets and failures leave nothing behind.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { readSafetensors } from '../checkpoints/safetensors.ts';
import { goldenOnnxLogits } from '../runtime/test-helpers.ts';
import type { Reply } from './contract.ts';
import { folderNameFor } from './model-export.ts';
import { WORKSPACE_FILE } from '../store/db.ts';
import { createEngine } from './handlers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const GOLDEN = resolve(import.meta.dirname, '../../../shared/goldens/models/bert-token-classification');
const ROOT = resolve(import.meta.dirname, '../..');

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine('benchtop-model-export-', { inSubfolder: true });
});
afterEach(async () => {
  await t.close();
});

function errorOf(reply: Reply<unknown>): string {
  return reply.ok ? 'ok' : `${reply.error.code}: ${reply.error.message}`;
}

/** A copy of the golden BERT whose lineage.json (if `status`) records that PHI status. */
function goldenCopy(name: string, status?: string, entries: unknown[] = []): string {
  const folder = join(t.dir, name);
  mkdirSync(folder);
  for (const f of readdirSync(GOLDEN).filter((f) => !f.startsWith('goldens.') && f !== 'pytorch_model.bin'))
    writeFileSync(join(folder, f), readFileSync(join(GOLDEN, f)));
  if (status !== undefined)
    writeFileSync(join(folder, 'lineage.json'), JSON.stringify({ phi_status: status, statement: '', entries }));
  return folder;
}


describe('models:export', () => {
  it('writes a folder that loads back with the same weights, and a model.onnx with the goldens’ logits', async () => {
    const publicText = { kind: 'pretrain', source: 'public text', containsPhi: false, gradients: true };
    const model = await t.call('models:import-folder', { path: goldenCopy('golden', 'no-phi', [publicText]), phiStatus: 'no-phi', name: 'Golden BERT' });
    const out = join(t.dir, 'exports', 'golden-export'); // its parent does not exist yet
    const report = await t.call('models:export', { modelId: model.id, outPath: out, includeOnnx: true });
    expect(report).toEqual({
      path: out,
      files: ['README.md', 'config.json', 'lineage.json', 'model.onnx', 'model.safetensors', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'],
      phiStatus: 'no-phi',
      namesWithheld: false,
    });
    expect(readdirSync(out).sort()).toEqual(report.files); // no staging folder left

    const source = loadHfFolder(join(t.dir, 'data', model.path));
    const exported = loadHfFolder(out);
    expect([...exported.weights.keys()].sort()).toEqual([...source.weights.keys()].sort());
    for (const [k, w] of source.weights) expect(exported.weights.get(k)!.data).toEqual(w.data);
    expect(exported.config.labels).toEqual(source.config.labels);

    const want = readSafetensors(join(GOLDEN, 'goldens.safetensors')).tensors.get('output/logits')!;
    const got = await goldenOnnxLogits(GOLDEN, join(out, 'model.onnx'));
    expect(got.dims).toEqual(want.dims);
    const diff = Math.max(...Array.from(got.data as Float32Array, (x, i) => Math.abs(x - (want.data[i] as number))));
    expect(diff).toBeLessThan(1e-5);

    const lineage = JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as Record<string, unknown>;
    expect(lineage).toMatchObject({ phi_status: 'no-phi', model_name: 'Golden BERT' });
    expect(lineage['entries']).toEqual([{ kind: 'pretrain', source: 'public text', containsPhi: false, gradients: true }]);
    // The card a reader opens first says it too (appended to the model's own card).
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    expect(card.startsWith(readFileSync(join(GOLDEN, 'README.md'), 'utf8').trimEnd())).toBe(true);
    expect(card).toContain('## Privacy and lineage\n\n**Status: no PHI in training data (only the text sources listed).**');

    // Imported back, it is the same model with the same record.
    const again = await t.call('models:import-folder', { path: out, phiStatus: 'no-phi' });
    expect(again.sha256).toBe(model.sha256);
    expect(again.phiStatus).toBe('no-phi');
  });

  it('says trained-on-phi when the library knows more than the folder’s own record, and never less', async () => {
    // The folder's lineage.json says no PHI, but the user declared PHI on import: the library's
    // status is what the export must carry.
    const publicText = { kind: 'pretrain', source: 'public text', containsPhi: false, gradients: true };
    const model = await t.call('models:import-folder', { path: goldenCopy('said-phi', 'no-phi', [publicText]), phiStatus: 'trained-on-phi' });
    expect(model.phiStatus).toBe('trained-on-phi');
    // The library's copy is read-only (imported from a read-only place): the export is not.
    for (const f of readdirSync(join(t.dir, 'data', model.path))) chmodSync(join(t.dir, 'data', model.path, f), 0o444);
    const out = join(t.dir, 'phi-export');
    expect((await t.call('models:export', { modelId: model.id, outPath: out })).phiStatus).toBe('trained-on-phi');
    for (const f of readdirSync(out)) expect(statSync(join(out, f)).mode & 0o777, f).toBe(0o666 & ~process.umask());
    // A user who keeps new files private (umask 077) gets them private: a PHI-trained model's
    // weights are not made readable by every account because the folder chosen was.
    const previous = process.umask(0o077);
    try {
      const shared = join(t.dir, 'shared');
      mkdirSync(shared, { mode: 0o755 });
      await t.call('models:export', { modelId: model.id, outPath: shared });
      for (const f of readdirSync(shared)) expect(statSync(join(shared, f)).mode & 0o777, f).toBe(0o600);
    } finally {
      process.umask(previous);
    }
    const record = JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as { phi_status: string; statement: string; entries: unknown[] };
    expect(record.phi_status).toBe('trained-on-phi');
    expect(record.statement).toMatch(/^trained on PHI/);
    // Its entries say why (the folder's own said only "public text, no PHI").
    expect(record.entries).toEqual([{ kind: 'pretrain', source: 'imported folder "said-phi"', containsPhi: true, gradients: true, phiStatus: 'trained-on-phi' }]);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('**Status: trained on PHI: private (possibly PHI-bearing) records contributed gradients.**');
    expect(existsSync(join(out, 'model.onnx'))).toBe(false);

    // A folder with no record at all gets one: an unknown model says unknown.
    const unknown = await t.call('models:import-folder', { path: goldenCopy('unrecorded'), phiStatus: 'unknown' });
    const out2 = join(t.dir, 'unknown-export');
    await t.call('models:export', { modelId: unknown.id, outPath: out2 });
    expect(JSON.parse(readFileSync(join(out2, 'lineage.json'), 'utf8'))).toMatchObject({
      phi_status: 'unknown',
      // The imported-folder entry says unknown too, as the card's PHI column (it said "no").
      entries: [{ kind: 'pretrain', source: 'imported folder "unrecorded"', containsPhi: false, phiStatus: 'unknown' }],
    });
    expect(readFileSync(join(out2, 'README.md'), 'utf8')).toContain('| pretrain | imported folder "unrecorded" |  | yes | unknown |');
  });

  it('says unknown, not a status it copied, when the folder’s record names none Benchtop knows', async () => {
    // The import read these as unknown; the export copied them as they were ("none" reads as
    // no PHI to a person, and the report's status was one the Models screen cannot show).
    for (const [i, bogus] of ['none', 'TRAINED-ON-PHI', 'toString'].entries()) {
      const model = await t.call('models:import-folder', { path: goldenCopy(`bogus-${i}`, bogus), phiStatus: 'no-phi' });
      expect(model.phiStatus).toBe('unknown');
      const out = join(t.dir, `bogus-export-${i}`);
      expect((await t.call('models:export', { modelId: model.id, outPath: out })).phiStatus, bogus).toBe('unknown');
      const record = JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as { phi_status: string; statement: string };
      expect(record.phi_status, bogus).toBe('unknown');
      expect(record.statement, bogus).toMatch(/\S/);
      expect(readFileSync(join(out, 'README.md'), 'utf8'), bogus).toContain(`**Status: ${record.statement}.**`);
    }
  });

  it('exports a folder whose own record holds entries another tool wrote, listing the library’s', async () => {
    // {"source": 7} failed the card's table: the export answered "unexpected problem (TypeError)".
    const model = await t.call('models:import-folder', { path: goldenCopy('odd-entries', 'no-phi', [{ kind: 'pretrain', source: 7 }, null]), phiStatus: 'no-phi' });
    const out = join(t.dir, 'odd-export');
    expect((await t.call('models:export', { modelId: model.id, outPath: out })).phiStatus).toBe('no-phi');
    const record = JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as { entries: { source: string }[] };
    expect(record.entries.map((e) => e.source)).toEqual(['imported folder "odd-entries"']);
  });

  it('says unknown for a folder imported as unknown before its entry kept the status (migration 11)', async () => {
    // Imported before 2026-11-24: the imported-folder entry had no status, and the export's PHI
    // column said "no" for it while models:get-lineage said unknown. Such a workspace is made here
    // by taking the statuses off, and what later migrations added, and setting its schema back to 10.
    const unknown = await t.call('models:import-folder', { path: goldenCopy('old-unknown'), phiStatus: 'unknown' });
    const clean = await t.call('models:import-folder', { path: goldenCopy('old-clean'), phiStatus: 'no-phi' });
    await t.restart((opts) => {
      const conn = new Database(join(opts.dataDir, WORKSPACE_FILE));
      conn.exec(`UPDATE model_lineage SET parent_phi_status = NULL;
        DROP TRIGGER evaluation_reports_document_moved; DROP TRIGGER evaluation_reports_document_deleted;
        DROP TABLE evaluation_report_documents; DROP TABLE evaluation_reports; PRAGMA user_version = 10;`);
      conn.close();
      return createEngine(opts);
    });
    for (const [model, status, phi] of [[unknown, 'unknown', 'unknown'], [clean, 'no-phi', 'no']] as const) {
      const out = join(t.dir, `${model.id}-export`);
      await t.call('models:export', { modelId: model.id, outPath: out });
      const record = JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8')) as { phi_status: string; entries: unknown[] };
      expect(record.phi_status).toBe(status);
      expect(record.entries).toEqual([{ kind: 'pretrain', source: expect.stringMatching(/^imported folder "old-/) as unknown, containsPhi: false, gradients: true, phiStatus: status }]);
      expect(readFileSync(join(out, 'README.md'), 'utf8')).toMatch(new RegExp(`\\| pretrain \\| imported folder "old-\\w+" \\|  \\| yes \\| ${phi} \\|`));
      expect((await t.call('models:get-lineage', { modelId: model.id })).derivedPhiStatus).toBe(status);
    }
  });

  it('states one status in the card of a model exported again: the library’s, not the previous export’s', async () => {
    // Exported as no PHI, imported elsewhere by someone who knows it saw patient notes, exported
    // again: the card kept the first export's "no PHI" section above the new one.
    const first = await t.call('models:import-folder', { path: goldenCopy('golden'), phiStatus: 'no-phi' });
    await t.call('models:export', { modelId: first.id, outPath: join(t.dir, 'first') });
    const again = await t.call('models:import-folder', { path: join(t.dir, 'first'), phiStatus: 'trained-on-phi' });
    // The card the Models screen shows beside "trained on PHI" does not say "no PHI" either.
    expect(again.card).not.toContain('Privacy and lineage');
    expect(again.card).toBe(readFileSync(join(GOLDEN, 'README.md'), 'utf8').trimEnd());
    const out = join(t.dir, 'second');
    await t.call('models:export', { modelId: again.id, outPath: out });
    const card = readFileSync(join(out, 'README.md'), 'utf8');
    expect(card.match(/^## Privacy and lineage$/gm)).toHaveLength(1);
    expect(card.match(/^\*\*Status: .*$/gm)).toEqual(['**Status: trained on PHI: private (possibly PHI-bearing) records contributed gradients.**']);
    expect(card).not.toContain('no PHI in training data');
    // The model's own card before the section is kept as it was.
    expect(card.startsWith(readFileSync(join(GOLDEN, 'README.md'), 'utf8').trimEnd())).toBe(true);
  });

  it('exports the shipped student with its own lineage record', async () => {
    const out = join(t.dir, 'student');
    mkdirSync(out); // an existing empty folder is fine
    writeFileSync(join(out, '.DS_Store'), ''); // so are hidden files (and they stay)
    const report = await t.call('models:export', { modelId: 'shipped:default-student', outPath: out });
    expect(report.files).toContain('model.safetensors');
    const shipped = JSON.parse(readFileSync(join(ROOT, 'resources/models/default-student/lineage.json'), 'utf8')) as { phi_status: string };
    expect(JSON.parse(readFileSync(join(out, 'lineage.json'), 'utf8'))).toMatchObject({ phi_status: shipped.phi_status });
    expect(readdirSync(out).sort()).toEqual(['.DS_Store', ...report.files].sort());
    // Imported elsewhere, the export keeps its card, metrics and record (PHI status included).
    rmSync(join(out, '.DS_Store'));
    const imported = await t.call('models:import-folder', { path: out, phiStatus: 'no-phi' });
    const copy = join(t.dir, 'data', imported.path);
    for (const f of ['README.md', 'metrics.json', 'lineage.json'])
      expect(existsSync(join(copy, f)), f).toBe(true);
    expect(readFileSync(join(copy, 'metrics.json'), 'utf8')).toBe(readFileSync(join(out, 'metrics.json'), 'utf8'));
  });

  it('refuses targets it must not write, naming them, and writes nothing', async () => {
    const model = await t.call('models:import-folder', { path: goldenCopy('golden'), phiStatus: 'no-phi', name: 'Golden BERT' });
    const data = join(t.dir, 'data');
    const busy = join(t.dir, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    const file = join(t.dir, 'a-file');
    writeFileSync(file, 'x');
    symlinkSync(data, join(t.dir, 'link-to-data'));
    const refused = async (outPath: string, modelId = model.id): Promise<string> =>
      errorOf(await t.invoke('models:export', { modelId, outPath }));

    expect(await refused('exports/golden')).toBe('invalid: Give the full path of the folder to export to, for example /home/me/exports/ner-model.');
    expect(await refused(join(data, 'exported'))).toBe(
      `invalid: ${join(data, 'exported')}: is inside Benchtop's data folder (${data}), which holds the workspace and its models; choose a folder outside it.`,
    );
    expect(await refused(join(t.dir, 'link-to-data', 'x'))).toMatch(/is inside Benchtop's data folder/);
    expect(await refused(busy)).toBe(
      `invalid: ${busy}: folder is not empty (notes.txt); an export never replaces files. Choose a new or empty folder, for example ${busy}/golden-bert.`,
    );
    expect(await refused(file)).toBe(`invalid: ${file}: exists and is not a folder; choose a new or empty folder to export to.`);
    symlinkSync(join(t.dir, 'nowhere'), join(t.dir, 'dangling'));
    expect(await refused(join(t.dir, 'dangling'))).toBe(
      `invalid: ${join(t.dir, 'dangling')}: is a link to ${join(t.dir, 'nowhere')}, which does not exist; choose a folder, or a new folder name.`,
    );
    const long = join(t.dir, 'x'.repeat(300), 'model');
    expect(await refused(long)).toBe(
      `invalid: ${long}: the name “${'x'.repeat(40)}…” is longer than a folder name may be (255 bytes); choose a shorter one.`,
    );
    expect(await refused(join(t.dir, 'a\0b'))).toBe('invalid-request: Invalid request: args.outPath must not contain a NUL character.');
    // The same guard covers every path argument (a document export answered an internal error).
    const [project] = await t.call('projects:list', {});
    expect(errorOf(await t.invoke('documents:export', { projectId: project!.id, format: 'jsonl', outPath: join(t.dir, 'a\0b.jsonl') }))).toBe(
      'invalid-request: Invalid request: args.outPath must not contain a NUL character.',
    );
    expect(await refused(join(file, 'sub'))).toMatch(/^invalid: .*a-file\/sub: part of the path \(.*a-file\) is a file, not a folder/);
    const student = join(ROOT, 'resources/models/default-student/copy');
    expect(await refused(student, 'shipped:default-student')).toMatch(/^invalid: .*: is inside Benchtop's own installation folder/);
    // There, a model folder would be listed as shipped with Benchtop.
    const asShipped = join(ROOT, 'resources/models/my-export');
    expect(await refused(asShipped)).toBe(`invalid: ${asShipped}: is inside Benchtop's own installation folder (${join(ROOT, 'resources')}/); choose a folder outside it.`);
    expect(existsSync(asShipped)).toBe(false);
    expect(await refused(join(t.dir, 'x'), 'no-such-model')).toMatch(/^not-found: That model is no longer in the library/);
    expect(errorOf(await t.invoke('models:export', { modelId: model.id, outPath: '' }))).toMatch(/^invalid-request: /);

    expect(readdirSync(busy)).toEqual(['notes.txt']);
    expect(readdirSync(t.dir).sort()).toEqual(['a-file', 'busy', 'dangling', 'data', 'golden', 'link-to-data']);
    expect(existsSync(student)).toBe(false);
  });
});

describe('models:export of a damaged library copy', () => {
  it('refuses, naming the library file and what is wrong, and writes nothing', async () => {
    const model = await t.call('models:import-folder', { path: goldenCopy('golden'), phiStatus: 'no-phi', name: 'Golden BERT' });
    const folder = join(t.dir, 'data', model.path);
    rmSync(join(folder, 'vocab.txt'));
    const out = join(t.dir, 'out');
    const reply = await t.invoke('models:export', { modelId: model.id, outPath: out });
    expect(errorOf(reply)).toMatch(new RegExp(`^unreadable-model: ${folder}/vocab\\.txt: .*; this model cannot be exported \\(import it again, or remove it\\)$`));
    expect(errorOf(reply)).not.toMatch(/benchtop-export/);
    writeFileSync(join(folder, 'vocab.txt'), readFileSync(join(GOLDEN, 'vocab.txt')));
    writeFileSync(join(folder, 'config.json'), '{"model_type": "bert",');
    expect(errorOf(await t.invoke('models:export', { modelId: model.id, outPath: out, includeOnnx: true }))).toMatch(
      new RegExp(`^unreadable-model: ${folder}/config\\.json: `),
    );
    writeFileSync(join(folder, 'config.json'), readFileSync(join(GOLDEN, 'config.json')));
    // JSON, but not the file it should be (an older import copied these as they were): never exported.
    for (const [file, text, reason] of [
      ['tokenizer.json', 'null', 'must be a JSON object \\(a Hugging Face tokenizer: .*\\), but holds null'],
      ['metrics.json', '[0.8]', 'must be a JSON object \\(the results of the run .*\\), but holds a list'],
    ]) {
      writeFileSync(join(folder, file!), text!);
      expect(errorOf(await t.invoke('models:export', { modelId: model.id, outPath: out })), file).toMatch(
        new RegExp(`^unreadable-model: ${folder}/${file!.replace('.', '\\.')}: ${reason!}; this model cannot be exported`),
      );
      rmSync(join(folder, file!));
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe('models:export while another export or a removal runs', () => {
  it('refuses a second export into the same folder, and removing the model until the export is done', async () => {
    const model = await t.call('models:import-folder', { path: goldenCopy('golden'), phiStatus: 'no-phi', name: 'Golden BERT' });
    const out = join(t.dir, 'same');
    const first = t.invoke('models:export', { modelId: model.id, outPath: out });
    const second = t.invoke('models:export', { modelId: 'shipped:default-student', outPath: out });
    const removal = t.invoke('models:delete', { modelId: model.id });
    expect(errorOf(await second)).toBe(`conflict: ${out}: another export is writing to this folder; wait for it to finish, or choose another folder.`);
    expect(errorOf(await removal)).toBe(
      'conflict: “Golden BERT” is being exported (Models screen); wait for the export to finish, then remove the model.',
    );
    expect(errorOf(await first)).toBe('ok');
    // Only the first export's files: the student's metrics.json never got in.
    expect(readdirSync(out).sort()).toEqual(['README.md', 'config.json', 'lineage.json', 'model.safetensors', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt']);
    expect(await t.call('models:delete', { modelId: model.id })).toEqual({ isDeleted: true });
  });
});

describe('folderNameFor', () => {
  it('makes a folder name from a model name in any script, never empty or a path', () => {
    expect(folderNameFor('Disease tagger v2')).toBe('disease-tagger-v2');
    expect(folderNameFor('  ../../etc/Café (NER)!  ')).toBe('etc-cafe-ner');
    expect(folderNameFor('Naïve Bayes-ish')).toBe('naive-bayes-ish');
    expect(folderNameFor('临床 模型')).toBe('临床-模型');
    expect(folderNameFor('😀 / \\ …')).toBe('model');
    expect(folderNameFor('x'.repeat(59) + ' tail')).toBe('x'.repeat(59));
  });
});

// A real full disk and a read-only place: a small tmpfs mounted in a user namespace (as
// engine/formats/export-target.test.ts). The export runs in that namespace over this engine's data.
const canMount = process.platform === 'linux' && spawnSync('unshare', ['-rm', 'true']).status === 0;

describe.runIf(canMount)('models:export onto a full or read-only disk', () => {
  it('names the problem and leaves nothing behind', async () => {
    const model = await t.call('models:import-folder', { path: goldenCopy('golden'), phiStatus: 'no-phi' });
    await t.engine.close();
    const mnt = join(t.dir, 'mnt');
    mkdirSync(mnt);
    const script = [
      "import { createEngine } from './engine/api/handlers.ts';",
      `const e = createEngine({ dataDir: '${join(t.dir, 'data')}' });`,
      `const full = await e.invoke('models:export', { modelId: '${model.id}', outPath: '${mnt}/full/model' });`,
      'console.log(full.error.code, full.error.message);',
      `const ro = await e.invoke('models:export', { modelId: '${model.id}', outPath: '${mnt}/ro/model' });`,
      'console.log(ro.error.code, ro.error.message);',
      'await e.close();',
    ].join('\n');
    // 256 KiB holds the small files but not the golden's weights (~260 KiB).
    const sh =
      `mount -t tmpfs -o size=256k tmpfs '${mnt}' && mkdir '${mnt}/full' '${mnt}/ro' && ` +
      `mount -t tmpfs -o ro,size=64k tmpfs '${mnt}/ro' && ` +
      `'${process.execPath}' --import tsx --input-type=module -e "$0"; ls -A '${mnt}' '${mnt}/full'`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', sh, script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      `invalid ${mnt}/full/model: the disk is full; nothing was exported (free some space, or choose another place, and export again).`,
      `invalid ${mnt}/ro/model: cannot write there (the location is read-only); choose another location`,
      `${mnt}:`,
      'full',
      'ro',
      '',
      `${mnt}/full:`,
    ]); // no model folder, no staging folder
  }, 60_000);
});
