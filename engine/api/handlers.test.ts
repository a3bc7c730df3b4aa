import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { MAX_DOCUMENT_CHARS } from './import.ts';
import { saveHfFolder } from '../checkpoints/hf-folder.ts';
import { presetConfig } from '../model/config.ts';
import { initWeights } from '../model/init.ts';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Args, EngineRequestName, Events, Reply, Result } from './contract.ts';
import { callEngine } from './test-engine.ts';
import { engineRequestNames } from './contract.ts';
import { type Engine, createEngine } from './handlers.ts';
import { validators } from './validate.ts';

const NCBI_DEV = resolve(
  import.meta.dirname,
  '../../../shared/data/documents/pubtator-ncbi/NCBIdevelopset_corpus.txt',
);

let dir: string;
let engine: Engine;
const events: { name: string; payload: unknown }[] = [];

const call = <K extends EngineRequestName>(name: K, args: Args<K>): Promise<Result<K>> => callEngine(engine, name, args);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'benchtop-api-'));
  engine = createEngine({ dataDir: dir });
  events.length = 0;
  engine.subscribe((name, payload) => events.push({ name, payload }));
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('engine API', () => {
  it('has a validator and an allow-list entry for every request', () => {
    expect(Object.keys(validators).sort()).toEqual(Object.keys(engineRequestNames).sort());
  });

  it('creates the demo project on first launch only', async () => {
    const [demo] = await call('projects:list', {});
    expect(demo?.name).toMatch(/Demo/);
    expect(demo?.documentCount).toBe(5);
    const schema = await call('schema:get', { projectId: demo!.id });
    expect(schema.entityTypes.map((t) => t.shortcut)).toEqual(['c', 'd', 'g']);
    await call('projects:delete', { projectId: demo!.id });
    await engine.close();
    engine = createEngine({ dataDir: dir });
    expect(await call('projects:list', {})).toEqual([]);
  });

  it('rejects unknown requests, bad arguments and foreign fields with envelopes', async () => {
    expect(await engine.invoke('nope:nope', {})).toMatchObject({
      ok: false,
      error: { code: 'unknown-request' },
    });
    expect(await engine.invoke('__proto__', {})).toMatchObject({
      ok: false,
      error: { code: 'unknown-request' },
    });
    expect(await engine.invoke('dialog:open-path', { kind: 'file' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
    expect(await engine.invoke('documents:get', { documentId: 'x' })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid-request',
        message: expect.stringContaining('args.documentId') as unknown,
      },
    });
    expect(await engine.invoke('projects:list', { extra: 1 })).toMatchObject({
      ok: false,
      error: { code: 'invalid-request' },
    });
    expect(await engine.invoke('documents:get', { documentId: 999 })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  });

  it('applies editor edits atomically and reads them back', async () => {
    const [demo] = await call('projects:list', {});
    const page = await call('documents:list', { projectId: demo!.id, filter: 'not-annotated' });
    expect(page.total).toBe(2);
    const doc = await call('documents:get', { documentId: page.items[0]!.id });
    const at = doc.text.indexOf('Parkinson disease');
    const lev = doc.text.indexOf('levodopa');
    const summary = await call('annotations:apply-edits', {
      documentId: doc.summary.id,
      edits: [
        {
          op: 'add-entity',
          entity: {
            key: 'T1',
            type: 'Disease',
            spans: [{ start: at, end: at + 17 }],
            text: '',
            origin: 'annotator',
            status: 'final',
          },
        },
        {
          op: 'add-entity',
          entity: {
            key: 'T2',
            type: 'Chemical',
            spans: [{ start: lev, end: lev + 8 }],
            text: '',
            origin: 'annotator',
            status: 'final',
          },
        },
        {
          op: 'add-relation',
          relation: {
            key: 'R1',
            type: 'treats',
            arg1: 'T2',
            arg2: 'T1',
            origin: 'annotator',
            status: 'final',
          },
        },
      ],
    });
    expect(summary.annotationCount).toBe(2);
    expect(summary.status).toBe('in-progress');
    // A relation that breaks the schema rolls back the whole batch.
    const bad = await engine.invoke('annotations:apply-edits', {
      documentId: doc.summary.id,
      edits: [
        { op: 'delete-relation', key: 'R1' },
        {
          op: 'add-relation',
          relation: {
            key: 'R2',
            type: 'treats',
            arg1: 'T1',
            arg2: 'T2',
            origin: 'annotator',
            status: 'final',
          },
        },
      ],
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid' } });
    const back = await call('documents:get', { documentId: doc.summary.id });
    expect(back.entities.map((e) => [e.key, e.text])).toEqual([
      ['T1', 'Parkinson disease'],
      ['T2', 'levodopa'],
    ]);
    expect(back.relations.map((r) => r.key)).toEqual(['R1']);
    // Types the project's schema does not have are refused, naming the type.
    const unknownType = await engine.invoke('annotations:apply-edits', {
      documentId: doc.summary.id,
      edits: [{ op: 'update-entity', key: 'T1', type: 'NoSuchType' }],
    });
    expect(unknownType).toMatchObject({ ok: false, error: { code: 'invalid', message: 'The project has no entity type “NoSuchType”; add it to the label schema first.' } });
    const unknownRelation = await engine.invoke('annotations:apply-edits', {
      documentId: doc.summary.id,
      edits: [{ op: 'add-relation', relation: { key: 'R3', type: 'made-up', arg1: 'T2', arg2: 'T1', origin: 'annotator', status: 'final' } }],
    });
    expect(unknownRelation).toMatchObject({ ok: false, error: { code: 'invalid', message: 'The project has no relation type “made-up”; add it to the label schema first.' } });
    expect((await call('documents:get', { documentId: doc.summary.id })).entities.map((e) => e.type)).toEqual(['Disease', 'Chemical']);
    // Edits made on an older revision (another window saved meanwhile) are refused as a conflict.
    const now = (await call('documents:get', { documentId: doc.summary.id })).summary.revision;
    expect(now).toBeGreaterThan(doc.summary.revision); // the saved batch; refused ones left it alone
    const stale = await engine.invoke('annotations:apply-edits', { documentId: doc.summary.id, baseRevision: doc.summary.revision, edits: [{ op: 'delete-entity', key: 'T1' }] });
    expect(stale).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect((await call('documents:get', { documentId: doc.summary.id })).entities.map((e) => e.key)).toEqual(['T1', 'T2']);
    const fresh = await call('annotations:apply-edits', { documentId: doc.summary.id, baseRevision: now, edits: [{ op: 'update-entity', key: 'T1', status: 'accepted' }] });
    expect(fresh.revision).toBe(now + 1);
  });

  it('imports a PubTator file with progress events and exports brat', async () => {
    const [demo] = await call('projects:list', {});
    const running = call('documents:import', {
      projectId: demo!.id,
      path: NCBI_DEV,
      containsPhi: false,
      importId: 'imp1',
    });
    // While it runs, a reloaded window finds it, and a second import into the project waits.
    expect(await call('documents:list-imports', { projectId: demo!.id })).toMatchObject([{ importId: 'imp1', projectId: demo!.id, source: basename(NCBI_DEV) }]);
    expect(await engine.invoke('documents:import', { projectId: demo!.id, path: NCBI_DEV, containsPhi: false })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: `An import into this project is in progress (“${basename(NCBI_DEV)}”); wait for it to finish, then import more.` },
    });
    const report = await running;
    expect(await call('documents:list-imports', { projectId: demo!.id })).toEqual([]);
    expect(report.documentsAdded).toBe(100);
    expect(report.entitiesAdded).toBeGreaterThan(500);
    // NCBI's own types are new to the demo schema (which has Disease already), and are reported.
    expect(report.typesAdded.entityTypes).toContain('SpecificDisease');
    expect(report.typesAdded.entityTypes).not.toContain('Disease');
    const phases = events
      .filter((e) => e.name === 'documents:import-progress')
      .map((e) => (e.payload as Events['documents:import-progress']).phase);
    expect(phases[0]).toBe('scanning');
    expect(phases.at(-1)).toBe('done');
    const found = await call('documents:list', { projectId: demo!.id, search: 'adenomatous' });
    expect(found.total).toBeGreaterThan(0);
    // Exports never go inside the data folder (`dir`): a sibling temp folder.
    const out = join(mkdtempSync(join(tmpdir(), 'benchtop-api-export-')), 'export-brat');
    const exp = await call('documents:export', {
      projectId: demo!.id,
      format: 'brat',
      outPath: out,
      documentIds: [found.items[0]!.id],
    });
    expect(exp.written).toHaveLength(2);
    expect(readFileSync(exp.written[1]!, 'utf8')).toMatch(/^T1\t\w+ \d+ \d+\t/m);
    // A second export to the same folder is refused with 'exists' until the user agrees.
    const again = { projectId: demo!.id, format: 'brat' as const, outPath: out, documentIds: [found.items[0]!.id] };
    expect(await engine.invoke('documents:export', again)).toMatchObject({
      ok: false,
      error: { code: 'exists', message: expect.stringMatching(/export-brat: folder is not empty \(2 entries\)/) as unknown },
    });
    expect((await call('documents:export', { ...again, overwrite: true })).written).toHaveLength(2);
    rmSync(dirname(out), { recursive: true, force: true });
  });

  it('refuses project and dataset names with invisible or direction characters, and drops them from a file name', async () => {
    const refusal = async <K extends EngineRequestName>(name: K, args: Args<K>): Promise<string> => {
      const reply = (await engine.invoke(name, args)) as Reply<Result<K>>;
      return reply.ok ? 'accepted' : `${reply.error.code}: ${reply.error.message}`;
    };
    const plain = 'cannot contain control, invisible or text-direction characters; type plain text.';
    // A zero-width space makes a second "Demo notes" that looks like the first; an override reverses text.
    expect(await refusal('projects:create', { name: 'Ward\u200b 7', template: 'empty' })).toBe(`invalid: A project name ${plain}`);
    const [demo] = await call('projects:list', {});
    expect(await refusal('projects:update', { projectId: demo!.id, name: 'Demo\u202e' })).toBe(`invalid: A project name ${plain}`);
    const note = join(dir, 'ward\u200b.txt');
    writeFileSync(note, 'Chest pain on exertion.\n');
    expect(await refusal('documents:import', { projectId: demo!.id, path: note, containsPhi: false, datasetName: 'notes\u2060' })).toBe(`invalid: A dataset name ${plain}`);
    const report = await call('documents:import', { projectId: demo!.id, path: note, containsPhi: false });
    expect((await call('datasets:list', { projectId: demo!.id })).find((d) => d.id === report.datasetId)?.name).toBe('ward');
    // Emoji sequences keep their zero-width joiners.
    expect((await call('projects:create', { name: 'Team 👩\u200d⚕️', template: 'empty' })).name).toBe('Team 👩\u200d⚕️');
  });

  it('imports nothing from a binary file and keeps no empty dataset', async () => {
    const [demo] = await call('projects:list', {});
    const before = await call('datasets:list', { projectId: demo!.id });
    const bin = join(dir, 'photo.txt');
    writeFileSync(bin, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)));
    const report = await call('documents:import', { projectId: demo!.id, path: bin, containsPhi: false, importId: 'imp-bin' });
    expect(report).toMatchObject({ documentsAdded: 0, datasetId: null });
    expect(report.issues.map((i) => i.message)).toEqual(['looks like binary data (an image, archive or program), not text; skipped']);
    expect(await call('datasets:list', { projectId: demo!.id })).toEqual(before);
    const long = join(dir, 'long.txt');
    writeFileSync(long, 'word '.repeat(MAX_DOCUMENT_CHARS / 5 + 1));
    const refused = await call('documents:import', { projectId: demo!.id, path: long, containsPhi: false, importId: 'imp-long' });
    expect(refused.documentsAdded).toBe(0);
    expect(refused.issues[0]?.message).toMatch(/^document long has 1,000,005 characters, more than the 1,000,000 .* split the file/);
    // An empty file (or one of only blank lines) is no document: skipped, said once.
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, ' \n\n');
    const none = await call('documents:import', { projectId: demo!.id, path: empty, containsPhi: false, importId: 'imp-empty' });
    expect(none).toMatchObject({ documentsAdded: 0, datasetId: null });
    expect(none.issues).toEqual([{ severity: 'warning', file: 'empty.txt', message: 'the file has no text (it is empty or only blank lines); skipped' }]);
    // A CoNLL file without -DOCSTART- lines is one document: the way to split it is said.
    const conll = join(dir, 'corpus.conll');
    writeFileSync(conll, 'Fever\tB-Problem\nnoted\tO\n\n'.repeat(MAX_DOCUMENT_CHARS / 12 + 1));
    const whole = await call('documents:import', { projectId: demo!.id, path: conll, containsPhi: false, importId: 'imp-conll' });
    expect(whole.documentsAdded).toBe(0);
    expect(whole.issues[0]?.message).toMatch(/^document corpus has .* a document may have here; import it again choosing “One document every N sentences” for CoNLL files without -DOCSTART- lines, and the limit applies to each of those documents \(or start each document with a -DOCSTART- line; without them the whole file is one document\)/);
  });

  it('removes an entity type only with consent for its annotations and never widens a relation rule', async () => {
    const [demo] = await call('projects:list', {});
    const projectId = demo!.id;
    const gene = { projectId, name: 'Gene' };
    expect(await engine.invoke('schema:delete-entity-type', gene)).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/^\d+ annotations? in \d+ documents? use “Gene”/) as unknown },
    });
    expect(await engine.invoke('schema:delete-entity-type', { ...gene, removeAnnotations: true })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: 'Relation “associated_with” allows only “Gene” as its first argument. Change or remove that relation type first.' },
    });
    const rule = (await call('schema:get', { projectId })).relationTypes.find((r) => r.name === 'associated_with')!;
    await call('schema:save-relation-type', { projectId, relationType: { ...rule, arg1Types: ['Gene', 'Chemical'] } });
    const before = await Promise.all((await call('documents:list', { projectId })).items.map((d) => call('documents:get', { documentId: d.id })));
    const schema = await call('schema:delete-entity-type', { ...gene, removeAnnotations: true });
    expect(schema.entityTypes.map((t) => t.name)).not.toContain('Gene');
    expect(schema.relationTypes.find((r) => r.name === 'associated_with')).toMatchObject({ arg1Types: ['Chemical'], arg2Types: ['Disease'] });
    for (const d of before) {
      const full = await call('documents:get', { documentId: d.summary.id });
      expect(full.entities.filter((e) => e.type === 'Gene')).toEqual([]);
      // A document that lost annotations moves to a new revision (an editor holding it reloads).
      const hadGene = d.entities.some((e) => e.type === 'Gene');
      expect(full.summary.revision).toBe(d.summary.revision + (hadGene ? 1 : 0));
    }
    expect(before.some((d) => d.entities.some((e) => e.type === 'Gene'))).toBe(true);
  });

  it('reports an unusable model folder with the loader message', async () => {
    const reply = await engine.invoke('models:import-folder', { path: dir, phiStatus: 'unknown' });
    expect(reply).toMatchObject({
      ok: false,
      error: {
        code: 'unreadable-model',
        message: expect.stringContaining('config.json') as unknown,
      },
    });
    // The workspace's models; shipped ones (resources/models) are listed too but are not the workspace's.
    expect((await call('models:list', {})).filter((m) => !m.isShipped)).toEqual([]);
  });

  it('imports a valid model folder with its facts and lineage, and deletes it again', async () => {
    const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'disease', '##s'];
    const config = presetConfig(
      'small-2L-128',
      'bert',
      vocab.length,
      ['O', 'B-Disease', 'I-Disease'],
      'token-classification',
    );
    const source = join(dir, 'tiny-model');
    saveHfFolder(source, {
      config,
      weights: initWeights(config, 1),
      vocab,
      tokenizer: {
        doLowerCase: true,
        stripAccents: null,
        tokenizeChineseChars: true,
        modelMaxLength: config.maxPositions,
        specialTokens: { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' },
      },
    });
    const model = await call('models:import-folder', {
      path: source,
      phiStatus: 'no-phi',
      name: 'Tiny NER',
    });
    expect(model).toMatchObject({
      name: 'Tiny NER',
      architecture: 'BertForTokenClassification',
      labels: ['O', 'B-Disease', 'I-Disease'],
      phiStatus: 'no-phi',
    });
    expect(model.parameters).toBeGreaterThan(100_000);
    expect(existsSync(join(dir, model.path, 'model.safetensors'))).toBe(true);
    const lineage = await call('models:get-lineage', { modelId: model.id });
    expect(lineage.entries[0]).toMatchObject({
      kind: 'pretrain',
      source: 'imported folder "tiny-model"',
      containsPhi: false,
    });
    expect(await call('models:delete', { modelId: model.id })).toEqual({ isDeleted: true });
    expect(existsSync(join(dir, model.path))).toBe(false);
    // The workspace's models; shipped ones (resources/models) are listed too but are not the workspace's.
    expect((await call('models:list', {})).filter((m) => !m.isShipped)).toEqual([]);
  });

  it('imports a MobileBERT folder and refuses a RoBERTa folder without a WordPiece vocab', async () => {
    const goldens = resolve(import.meta.dirname, '../../../shared/goldens/models');
    const model = await call('models:import-folder', {
      path: join(goldens, 'mobilebert-token-classification'),
      phiStatus: 'no-phi',
    });
    expect(model).toMatchObject({ architecture: 'MobileBertForTokenClassification', labels: ['LABEL_0', 'LABEL_1', 'LABEL_2', 'LABEL_3', 'LABEL_4'] });
    expect(existsSync(join(dir, model.path, 'vocab.txt'))).toBe(true);
    const reply = await engine.invoke('models:import-folder', { path: join(goldens, 'roberta-token-classification'), phiStatus: 'unknown' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'unreadable-model', message: expect.stringContaining('vocab.txt: missing') as unknown } });
  });

  it('persists settings', async () => {
    expect(await call('settings:get', {})).toMatchObject({ int8Inference: false });
    await call('settings:update', { threads: 1, int8Inference: true });
    expect(await call('settings:get', {})).toMatchObject({ threads: 1, device: 'cpu', int8Inference: true });
    await expect(call('settings:update', { int8Inference: 'yes' as unknown as boolean })).rejects.toThrow(/int8Inference/);
  });
});
