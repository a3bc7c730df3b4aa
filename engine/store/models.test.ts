// Tests for model registration and the lineage query: which datasets fed a model's gradients,
// which reached it through a teacher, and how PHI status propagates and survives deletions.
import { beforeEach, describe, expect, it } from 'vitest';
import { createDataset, deleteDataset, updateDataset } from './datasets.ts';
import { type Workspace, openMemory } from './db.ts';
import { StoreError } from './errors.ts';
import { getModelLineage } from './lineage.ts';
import { type LineageInput, type Model, deleteModel, getModel, listModels, registerModel, updateModel } from './models.ts';
import { createProject } from './projects.ts';

let ws: Workspace;
let ds: { pubmed: number; clinical: number; transfer: number; extra: number };
const SHA = 'a'.repeat(64);

function model(name: string, lineage: LineageInput[]): Model {
  return registerModel(ws.write, {
    name, path: `models/${name}/model.onnx`, architecture: 'bert', task: 'ner', parameters: 4_400_000,
    sizeBytes: 17_600_000, sha256: SHA, labels: ['O', 'B-Disease', 'I-Disease'], lineage,
  });
}

beforeEach(() => {
  ws = openMemory();
  const projectId = createProject(ws.write, { name: 'lineage' }).id;
  const mk = (name: string, containsPhi: boolean): number => createDataset(ws.write, { projectId, name, containsPhi }).id;
  ds = { pubmed: mk('pubmed-ner', false), clinical: mk('clinical-notes', true), transfer: mk('transfer-set', false), extra: mk('extra', false) };
  return () => ws.close();
});

describe('registerModel', () => {
  it('stores the record and lists it; no lineage and no status means unknown', () => {
    const m = registerModel(ws.write, {
      name: 'imported', path: 'models/imported/model.onnx', architecture: 'bert', task: 'ner', parameters: 1,
      sizeBytes: 10, sha256: SHA.toUpperCase(), labels: ['O'], metrics: { f1: 0.8 }, card: '# Imported',
    });
    expect(m).toMatchObject({ phiStatus: 'unknown', sha256: SHA, metrics: { f1: 0.8 }, card: '# Imported' });
    expect(getModel(ws.read, m.id)).toEqual(m);
    expect(listModels(ws.read).map((x) => x.id)).toEqual([m.id]);
    expect(updateModel(ws.write, m.id, { card: '# New' }).card).toBe('# New');
    expect(() => model('bad', [{ kind: 'teacher', datasetId: ds.pubmed }])).toThrow(StoreError);
    expect(() => model('bad', [{ kind: 'fine-tune' }])).toThrow(/needs a dataset/);
  });
});

describe('lineage', () => {
  let base: Model;
  let teacher: Model;
  let student: Model;

  beforeEach(() => {
    base = model('base', [{ kind: 'pretrain', source: 'PubMed abstracts (public)' }]);
    teacher = model('teacher', [
      { kind: 'base-model', parentModelId: base.id },
      { kind: 'fine-tune', datasetId: ds.clinical },
      { kind: 'fine-tune', datasetId: ds.pubmed, weight: 0.5 },
    ]);
    student = model('student', [
      { kind: 'init', parentModelId: base.id },
      { kind: 'teacher', parentModelId: teacher.id },
      { kind: 'distill-transfer', datasetId: ds.transfer },
    ]);
  });

  it('derives statuses: public → no-phi, PHI fine-tune → trained, PHI teacher → distilled', () => {
    expect([base.phiStatus, teacher.phiStatus, student.phiStatus]).toEqual(['no-phi', 'trained-on-phi', 'distilled-from-phi-teacher']);
  });

  it('answers which datasets fed the gradients and whether any contained PHI', () => {
    const t = getModelLineage(ws.read, teacher.id);
    expect(t?.gradientSources.map((e) => [e.datasetName ?? e.source, e.path, e.containsPhi])).toEqual([
      ['clinical-notes', 'direct', true],
      ['pubmed-ner', 'direct', false],
      ['PubMed abstracts (public)', 'inherited', false],
    ]);
    expect(t?.gradientsContainPhi).toBe(true);
    const s = getModelLineage(ws.read, student.id);
    expect(s?.gradientSources.map((e) => e.datasetName ?? e.source)).toEqual(['transfer-set', 'PubMed abstracts (public)']);
    expect(s?.gradientsContainPhi).toBe(false);
    expect(s?.teacherSources.map((e) => [e.datasetName ?? e.source, e.containsPhi])).toEqual([
      ['clinical-notes', true], ['pubmed-ner', false], ['PubMed abstracts (public)', false],
    ]);
    expect(s?.containsPhi).toBe(true);
    expect(s?.ancestors.map((a) => [a.name, a.path])).toEqual([['base', 'inherited'], ['teacher', 'teacher'], ['base', 'teacher']]);
    expect(getModelLineage(ws.read, 'nope')).toBeUndefined();
  });

  it('inherits through fine-tuning chains and never downgrades an explicit status', () => {
    const grand = model('grand', [{ kind: 'base-model', parentModelId: student.id }, { kind: 'fine-tune', datasetId: ds.pubmed }]);
    expect(grand.phiStatus).toBe('distilled-from-phi-teacher');
    const claimed = registerModel(ws.write, {
      name: 'claimed', path: 'x', architecture: 'bert', task: 'ner', parameters: 1, sizeBytes: 1, sha256: SHA,
      labels: [], phiStatus: 'no-phi', lineage: [{ kind: 'base-model', parentModelId: teacher.id }],
    });
    expect(claimed.phiStatus).toBe('trained-on-phi');
  });

  it('flagging a dataset as PHI later upgrades every model downstream', () => {
    const onExtra = model('on-extra', [{ kind: 'base-model', parentModelId: base.id }, { kind: 'fine-tune', datasetId: ds.extra }]);
    const child = model('child', [{ kind: 'base-model', parentModelId: onExtra.id }, { kind: 'fine-tune', datasetId: ds.pubmed }]);
    const distilled = model('distilled', [{ kind: 'teacher', parentModelId: onExtra.id }, { kind: 'distill-transfer', datasetId: ds.pubmed }]);
    expect([onExtra, child, distilled].map((m) => m.phiStatus)).toEqual(['no-phi', 'no-phi', 'no-phi']);
    updateDataset(ws.write, ds.extra, { containsPhi: true });
    expect([onExtra, child, distilled].map((m) => getModel(ws.read, m.id)?.phiStatus)).toEqual([
      'trained-on-phi', 'trained-on-phi', 'distilled-from-phi-teacher',
    ]);
    expect(getModel(ws.read, base.id)?.phiStatus).toBe('no-phi');
  });

  it('a student of a PHI teacher started from weights of unknown origin is unknown, not "no PHI in training data"', () => {
    const imported = registerModel(ws.write, {
      name: 'imported', path: 'models/imported', architecture: 'bert', task: 'ner', parameters: 1, sizeBytes: 1, sha256: SHA, labels: [],
    });
    expect(imported.phiStatus).toBe('unknown');
    const s = model('from-imported', [
      { kind: 'base-model', parentModelId: imported.id },
      { kind: 'teacher', parentModelId: teacher.id },
      { kind: 'distill-transfer', datasetId: ds.transfer },
    ]);
    expect(s.phiStatus).toBe('unknown');
    expect(getModelLineage(ws.read, s.id)).toMatchObject({ derivedPhiStatus: 'unknown', containsPhi: true, gradientsContainPhi: false });
    // A student of an unknown teacher with public weights stays below PHI-trained.
    expect(model('of-imported', [{ kind: 'teacher', parentModelId: imported.id }, { kind: 'distill-transfer', datasetId: ds.transfer }]).phiStatus).toBe('unknown');
  });

  it('an import of unknown status derives unknown, its own record or an older one without the entry status', () => {
    const imported = { name: 'imported', path: 'models/imported', architecture: 'bert', task: 'ner', parameters: 1, sizeBytes: 1, sha256: SHA, labels: [], phiStatus: 'unknown' as const };
    // As imports recorded it before the entry kept a status: the model's own status is the floor.
    const old = registerModel(ws.write, { ...imported, lineage: [{ kind: 'pretrain', source: 'imported folder "x"' }] });
    const now = registerModel(ws.write, { ...imported, lineage: [{ kind: 'pretrain', source: 'imported folder "x"', phiStatus: 'unknown' }] });
    for (const m of [old, now]) {
      expect(m.phiStatus).toBe('unknown');
      expect(getModelLineage(ws.read, m.id)?.derivedPhiStatus).toBe('unknown');
    }
    expect(getModelLineage(ws.read, now.id)?.entries[0]).toMatchObject({ parentPhiStatus: 'unknown', containsPhi: false });
    // Its fine-tuned child on public data stays unknown once it is removed, too.
    const child = model('child', [{ kind: 'base-model', parentModelId: old.id }, { kind: 'fine-tune', datasetId: ds.pubmed }]);
    deleteModel(ws.write, old.id);
    expect(getModelLineage(ws.read, child.id)?.derivedPhiStatus).toBe('unknown');
    expect(() => model('bad', [{ kind: 'fine-tune', datasetId: ds.pubmed, phiStatus: 'no-phi' }])).toThrow(/outside the workspace/);
  });

  it('keeps the PHI facts when the dataset or the teacher is deleted', () => {
    deleteDataset(ws.write, ds.clinical);
    const t = getModelLineage(ws.read, teacher.id);
    const phiRow = t?.gradientSources.find((e) => e.containsPhi);
    expect(phiRow).toMatchObject({ datasetId: null, datasetName: null, source: 'dataset "clinical-notes"' });
    expect(t?.derivedPhiStatus).toBe('trained-on-phi');
    deleteModel(ws.write, teacher.id);
    const s = getModelLineage(ws.read, student.id);
    expect(s?.entries.find((e) => e.kind === 'teacher')).toMatchObject({ parentModelId: null, containsPhi: true });
    expect(s?.derivedPhiStatus).toBe('distilled-from-phi-teacher');
  });

  it('keeps a deleted parent’s own status: unknown stays unknown, distilled stays distilled', () => {
    const imported = registerModel(ws.write, {
      name: 'imported', path: 'models/imported', architecture: 'bert', task: 'ner', parameters: 1, sizeBytes: 1, sha256: SHA, labels: [],
    });
    const fromImported = model('from-imported', [{ kind: 'base-model', parentModelId: imported.id }, { kind: 'fine-tune', datasetId: ds.pubmed }]);
    const phiTeacher = model('phi-teacher', [{ kind: 'fine-tune', datasetId: ds.clinical }]);
    const student = model('student', [{ kind: 'teacher', parentModelId: phiTeacher.id }, { kind: 'distill-transfer', datasetId: ds.transfer }]);
    const fromStudent = model('from-student', [{ kind: 'base-model', parentModelId: student.id }, { kind: 'fine-tune', datasetId: ds.pubmed }]);
    expect(getModelLineage(ws.read, fromStudent.id)?.derivedPhiStatus).toBe('distilled-from-phi-teacher');
    deleteModel(ws.write, imported.id);
    deleteModel(ws.write, student.id);
    // Before, an unknown parent left only a "no PHI" flag behind, and a distilled one read as PHI-trained.
    expect(getModelLineage(ws.read, fromImported.id)?.derivedPhiStatus).toBe('unknown');
    expect(getModelLineage(ws.read, fromStudent.id)?.derivedPhiStatus).toBe('distilled-from-phi-teacher');
    expect(getModelLineage(ws.read, fromImported.id)?.entries.find((e) => e.kind === 'base-model')).toMatchObject({ parentModelId: null, parentPhiStatus: 'unknown' });
  });

  it('a parent’s raised status reaches the entries that name it', () => {
    const base = model('base', [{ kind: 'fine-tune', datasetId: ds.pubmed }]);
    const child = model('child', [{ kind: 'base-model', parentModelId: base.id }]);
    updateDataset(ws.write, ds.pubmed, { containsPhi: true });
    deleteModel(ws.write, base.id);
    expect(getModelLineage(ws.read, child.id)?.entries[0]).toMatchObject({ parentPhiStatus: 'trained-on-phi', containsPhi: true });
    expect(getModelLineage(ws.read, child.id)?.derivedPhiStatus).toBe('trained-on-phi');
  });
});
