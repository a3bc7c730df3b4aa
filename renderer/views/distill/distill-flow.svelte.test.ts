import { describe, expect, it, vi } from 'vitest';
import type { DatasetInfo, ModelInfo } from '../../../engine/api/contract.ts';

vi.mock('../../lib/api.ts', () => ({
  call: vi.fn(() => Promise.resolve({ presets: [] })),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
const { DistillFlow, presetLabel, presetPlain, transferCheckedNote } = await import('./distill-flow.svelte.ts');
const { call } = await import('../../lib/api.ts');

function model(id: string, phiStatus: ModelInfo['phiStatus']): ModelInfo {
  return {
    id,
    name: id,
    architecture: 'bert',
    task: 'token-classification',
    parameters: 1,
    sizeBytes: 1,
    sha256: '',
    labels: [],
    metrics: {},
    createdAt: '',
    phiStatus,
    card: '',
    path: `models/${id}`,
    isShipped: false,
  };
}

function dataset(id: number, name: string): DatasetInfo {
  return { id, projectId: 1, name, source: `${name}.txt`, isPrivate: true, containsPhi: true, documentCount: 3, finishedCount: 3, createdAt: '' };
}

describe('distill flow', () => {
  it('offers a student size with its weights said to leave out the embeddings the Models screen counts', () => {
    // small-2L-128 as train:get-options gives it: 2 × (4·128² + 2·128·512) weights in its layers;
    // the model it makes shows 4.4 M on the Models screen (30,522 × 128 embeddings included).
    const label = presetLabel({ name: 'small-2L-128', layers: 2, hidden: 128, approxParameters: 393_216, note: 'very small and fast' });
    expect(label).toBe('small-2L-128: very small and fast (~393 K weights, not counting the word embeddings)');
  });

  it('starts the student from the shipped default student when there is one, once, never undoing a choice', async () => {
    const shipped = { ...model('shipped:default-student', 'no-phi'), task: 'masked-lm', isShipped: true };
    const teacher = model('ward', 'trained-on-phi');
    const options = (recommendedBaseId: string | null) => ({
      presets: [],
      shipped: [{ id: 'shipped:default-student', name: 'Default student', description: 'Trained on public text only.', phiStatus: 'no-phi' }],
      recommendedBaseId,
    });
    vi.mocked(call).mockResolvedValue(options('shipped:default-student') as never);
    const flow = new DistillFlow({ models: () => [teacher, shipped], datasets: () => [] });
    expect(flow.studentKind).toBe('preset'); // until the options are known
    await flow.loadPresets();
    expect([flow.studentKind, flow.studentModelId]).toEqual(['model', 'shipped:default-student']);
    expect(flow.studentBase?.id).toBe('shipped:default-student');
    expect(flow.blockerAt(1)).toBeNull();
    expect(flow.toArgs(1)).toMatchObject({ studentModelId: 'shipped:default-student' });
    expect(flow.toArgs(1)).not.toHaveProperty('studentPreset');
    expect(flow.studentPhi).toBe('distilled-from-phi-teacher');
    // The user goes back to a new model; coming back to the screen loads the options again.
    flow.studentKind = 'preset';
    await flow.loadPresets();
    expect(flow.studentKind).toBe('preset');
    expect(flow.toArgs(1)).toMatchObject({ studentPreset: 'small-2L-128' });

    // An installation without it starts a new model, as before.
    vi.mocked(call).mockResolvedValue(options(null) as never);
    const bare = new DistillFlow({ models: () => [teacher], datasets: () => [] });
    await bare.loadPresets();
    expect([bare.studentKind, bare.recommended]).toEqual(['preset', null]);
    vi.mocked(call).mockResolvedValue({ presets: [] } as never);
  });

  it('names a student size in plain words, not the preset code (small-2L-128)', () => {
    expect(presetPlain({ note: 'very small and fast; good for trying things out', layers: 2, hidden: 128 })).toBe('very small and fast (2 layers, 128 wide)');
    expect(presetPlain({ note: '', layers: 1, hidden: 64 })).toBe('1 layer, 64 wide');
  });

  it('says what the student will be and pins the teacher once past the first step', () => {
    let models = [model('teacher', 'trained-on-phi')];
    const flow = new DistillFlow({ models: () => models, datasets: () => [] });
    expect(flow.studentPhi).toBe('distilled-from-phi-teacher');
    flow.go(1);
    expect(flow.step).toBe(1);
    models = [model('student', 'no-phi'), ...models];
    expect(flow.teacher?.id).toBe('teacher');
    flow.includePrivate = true;
    expect(flow.studentPhi).toBe('trained-on-phi');
    flow.includePrivate = false;
  });

  it('blocks a library student whose labels the teacher does not have (the run failed once started)', () => {
    const teacher = { ...model('teacher', 'trained-on-phi'), labels: ['O', 'B-Disease', 'I-Disease'] };
    const chem = { ...model('chem', 'no-phi'), labels: ['O', 'B-Chemical', 'I-Chemical'] };
    const fewer = { ...model('fewer', 'no-phi'), labels: ['O', 'B-Disease'] };
    const mlm = { ...model('mlm', 'no-phi'), task: 'masked-lm', labels: [] };
    const relations = { ...model('relations', 'no-phi'), task: 'sequence-classification', labels: ['0', 'Chemical-Gene'] };
    const flow = new DistillFlow({ models: () => [teacher, chem, fewer, mlm, relations], datasets: () => [] });
    flow.teacherId = 'teacher';
    flow.go(1);
    flow.studentKind = 'model';
    flow.studentModelId = 'chem';
    expect(flow.blockerAt(1)).toBe("“chem” has labels the teacher “teacher” does not (B-Chemical, I-Chemical), so it cannot learn from it. Choose a model with the teacher's labels, or start the student as a new model.");
    flow.go(2);
    expect(flow.step).toBe(1);
    // The teacher's labels, a model without a task's labels, or one of another kind (which takes the teacher's): taken.
    for (const id of ['fewer', 'mlm', 'relations']) {
      flow.studentModelId = id;
      expect(flow.blockerAt(1)).toBeNull();
    }
    flow.studentKind = 'preset';
    expect(flow.blockerAt(1)).toBeNull();
  });

  it('blocks the transfer step until the own text is declared free of PHI', () => {
    const flow = new DistillFlow({ models: () => [model('t', 'no-phi')], datasets: () => [] });
    expect(flow.studentPhi).toBe('no-phi');
    flow.go(2);
    flow.go(3);
    expect(flow.step).toBe(3);
    flow.step = 2;
    flow.useGeneral = false;
    expect(flow.blockerAt(2)).toMatch(/at least one kind/);
    flow.useFolder = true;
    flow.folder = '/data/public';
    expect(flow.blockerAt(2)).toMatch(/no patient information/);
    flow.go(3);
    expect(flow.step).toBe(2);
    flow.isFolderClean = true;
    flow.useRandom = true;
    expect(flow.toArgs(4)).toMatchObject({
      projectId: 4,
      teacherModelId: 't',
      studentPreset: 'small-2L-128',
      transfer: ['random', '/data/public'],
      transferIsFreeOfPhi: true,
      steps: 2000,
    });
  });

  it('names your own transfer text by its path on Review, and says what its check found once a run starts', () => {
    const flow = new DistillFlow({ models: () => [model('t', 'trained-on-phi')], datasets: () => [] });
    expect(flow.transferSummary).toEqual(['general English text']);
    flow.useRandom = true;
    flow.useFolder = true;
    expect(flow.transferSummary).toEqual(['general English text', 'randomised text', 'your own text']);
    flow.folder = '  /home/me/articles  ';
    flow.isFolderClean = true;
    expect(flow.transferSummary).toEqual(['general English text', 'randomised text', 'your own text, /home/me/articles']);

    // Passed whole: the screen says so, naming the text and what was (and was not) checked.
    const said = transferCheckedNote(flow.toArgs(1), null);
    expect(said).toMatch(/^\/home\/me\/articles: not Benchtop's data folder, and repeats none of the documents marked as holding patient data/);
    expect(said).toMatch(/does not read it for names or identifiers/);
    // Checked in part: only the warning that says what was not checked; nothing read: nothing to say.
    expect(transferCheckedNote(flow.toArgs(1), 'The teacher was trained before 2026-11-24 …')).toBeNull();
    expect(transferCheckedNote({ transfer: ['general', 'random'] }, null)).toBeNull();
  });

  it('does not offer an imported classifier with LABEL_n labels as the teacher, and says why when chosen', () => {
    const generic = { ...model('imported', 'no-phi'), labels: ['LABEL_0', 'LABEL_1', 'LABEL_2'] };
    const trained = { ...model('trained', 'no-phi'), labels: ['O', 'B-Disease', 'I-Disease'] };
    const flow = new DistillFlow({ models: () => [generic, trained], datasets: () => [] });
    expect(flow.teacher?.id).toBe('trained');
    expect(flow.blockerAt(0)).toBeNull();
    flow.teacherId = 'imported';
    expect(flow.blockerAt(0)).toBe(
      '“imported” has no named labels (only LABEL_0, LABEL_1…), so it cannot teach. Choose a model trained on the Train screen.',
    );
    flow.go(1);
    expect(flow.step).toBe(0);
  });

  it('names the step count or time limit the engine would refuse before starting', () => {
    const flow = new DistillFlow({ models: () => [model('t', 'no-phi')], datasets: () => [] });
    for (const steps of [0, 1.5, 20_000_000, Number.NaN]) {
      flow.steps = steps;
      expect(flow.blockerAt(3), String(steps)).toMatch(/^Training steps must be a whole number from 1 to 10.?000.?000\.$/);
    }
    flow.steps = 50;
    expect(flow.blockerAt(3)).toBeNull();
    for (const minutes of [0.01, -1, 30_000]) {
      flow.maxMinutes = minutes;
      expect(flow.blockerAt(3), String(minutes)).toMatch(/^The time limit must be from 0\.05 minutes/);
    }
    for (const minutes of [null, 0, 0.05, 90]) {
      flow.maxMinutes = minutes;
      expect(flow.blockerAt(3), String(minutes)).toBeNull();
    }
  });

  it('says a student started from a PHI-trained or unknown library model will be marked that way', () => {
    const models = [model('teacher', 'no-phi'), model('phi-start', 'trained-on-phi'), model('odd-start', 'unknown')];
    const flow = new DistillFlow({ models: () => models, datasets: () => [] });
    expect(flow.studentPhi).toBe('no-phi');
    flow.studentKind = 'model';
    flow.studentModelId = 'phi-start';
    expect(flow.studentPhi).toBe('trained-on-phi');
    flow.studentModelId = 'odd-start';
    expect(flow.studentPhi).toBe('unknown');
    // A preset student starts from nothing: only the teacher counts.
    flow.studentKind = 'preset';
    expect(flow.studentPhi).toBe('no-phi');
  });

  it('never swaps a removed teacher for another one behind the user’s back', () => {
    let models = [model('clean', 'no-phi'), model('chosen', 'no-phi'), model('phi', 'trained-on-phi')];
    const flow = new DistillFlow({ models: () => models, datasets: () => [] });
    flow.teacherId = 'chosen';
    flow.go(3);
    expect(flow.step).toBe(3);
    models = models.filter((m) => m.id !== 'chosen');
    expect(flow.teacher).toBeNull();
    expect(flow.blockerAt(3)).toBe('The teacher you chose is no longer in the library; choose another one.');
    flow.teacherId = 'phi';
    expect(flow.blockerAt(3)).toBeNull();
    expect(flow.studentPhi).toBe('distilled-from-phi-teacher');
  });

  it('mixes in only datasets of the open project: a choice made in another project is neither sent nor reviewed', () => {
    let open = [dataset(1, 'Ward notes'), dataset(2, 'Clinic letters')];
    const flow = new DistillFlow({ models: () => [model('t', 'trained-on-phi')], datasets: () => open });
    flow.includePrivate = true;
    flow.togglePrivate(1, true);
    flow.alpha = 0.3;
    expect(flow.blockerAt(2)).toBeNull();
    expect(flow.privateSummary).toBe('Ward notes (30 % of the steps)');
    expect(flow.toArgs(1).includePrivate).toEqual({ datasetIds: [1], alpha: 0.3 });
    // Another project is opened mid-flow: its datasets are listed, none of them ticked.
    open = [dataset(7, 'Public abstracts')];
    expect(flow.privateSummary).toBeNull();
    expect(flow.blockerAt(2)).toBe('Choose the private datasets to mix in, or untick that option.');
    flow.togglePrivate(7, true);
    expect(flow.toArgs(2).includePrivate).toEqual({ datasetIds: [7], alpha: 0.3 });
    expect(flow.privateSummary).toBe('Public abstracts (30 % of the steps)');
  });
});
