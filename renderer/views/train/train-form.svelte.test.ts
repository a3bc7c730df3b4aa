import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DatasetInfo, ModelInfo, TrainOptions } from '../../../engine/api/contract.ts';

const OPTIONS: TrainOptions = {
  shipped: [],
  presets: [
    { name: 'small-2L-128', layers: 2, hidden: 128, approxParameters: 1, note: 'fast' },
    { name: 'tiny-4L-312', layers: 4, hidden: 312, approxParameters: 2, note: 'small' },
  ],
  recommendedBaseId: null,
  hasPresetVocabulary: true,
  presetVocabularySource: 'test',
};
vi.mock('../../lib/api.ts', () => ({
  call: vi.fn(() => Promise.resolve(OPTIONS)),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
const { TrainFormState, headNote } = await import('./train-form.svelte.ts');
const { call } = await import('../../lib/api.ts');

function dataset(id: number, containsPhi = false, finishedCount = 2): DatasetInfo {
  return {
    id,
    projectId: 1,
    name: `d${id}`,
    source: '',
    isPrivate: containsPhi,
    containsPhi,
    documentCount: 3,
    finishedCount,
    createdAt: '',
  };
}

function model(id: string, task: string, phiStatus: ModelInfo['phiStatus'] = 'no-phi'): ModelInfo {
  return {
    id,
    name: id,
    architecture: 'bert',
    task,
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

let models: ModelInfo[];
let datasets: DatasetInfo[];
beforeEach(() => {
  models = [];
  datasets = [dataset(1)];
});

describe('train form', () => {
  it('takes the only dataset unticked at its word: nothing chosen, Start blocked, until ticked again', async () => {
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.chosenDatasetIds).toEqual([1]);
    form.toggle('datasetIds', 1, false);
    expect(form.chosenDatasetIds).toEqual([]);
    expect(form.blocker).toBe('Choose at least one dataset to learn from.');
    form.toggle('datasetIds', 1, true);
    expect(form.chosenDatasetIds).toEqual([1]);
    expect(form.blocker).toBeNull();
  });

  it('starts with the datasets that have annotated documents ticked, and then follows the ticks', async () => {
    datasets = [dataset(1, false, 0), dataset(2, false, 4), dataset(3, true, 1)];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.chosenDatasetIds).toEqual([2, 3]);
    expect(form.blocker).toBeNull();
    form.toggle('datasetIds', 3, false);
    expect(form.chosenDatasetIds).toEqual([2]);
    form.toggle('datasetIds', 2, false);
    expect(form.chosenDatasetIds).toEqual([]); // all unticked: not ticked again behind the user's back
    expect(form.blocker).toBe('Choose at least one dataset to learn from.');
    datasets = [dataset(1, false, 0), dataset(2, false, 0)];
    const none = new TrainFormState({ models: () => models, datasets: () => datasets });
    await none.loadOptions();
    expect(none.chosenDatasetIds).toEqual([]);
  });

  it('says, for a single finished document, that part of it is held back instead of a share of documents', async () => {
    datasets = [dataset(1, false, 1), dataset(2, false, 0)];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.holdOutNote).toMatch(/^Only one chosen document is marked Annotated or Reviewed, so none can be held out: a tenth of it is held back/);
    form.toggle('devDatasetIds', 2, true); // measured on another dataset: nothing held out of it
    expect(form.holdOutNote).toBeNull();
    datasets = [dataset(1, false, 2)];
    expect(new TrainFormState({ models: () => models, datasets: () => datasets }).holdOutNote).toBeNull();
  });

  it('defaults to the only dataset and the smallest preset, and sends a hold-out share', async () => {
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.chosenDatasetIds).toEqual([1]);
    expect(form.selectedBase).toBe('preset:small-2L-128');
    expect(form.blocker).toBeNull();
    expect(form.toArgs(9)).toMatchObject({
      projectId: 9,
      task: 'ner',
      datasetIds: [1],
      preset: 'small-2L-128',
      devFraction: 0.1,
    });
    form.lr = -5;
    expect(form.blocker).toMatch(/^The learning rate must be between 0\.0000001 and 1/);
    form.lr = 3e-5;
    expect(form.blocker).toBeNull();
  });

  it('leaves the epoch count to the engine unless one is typed (automatic for little data)', async () => {
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.blocker).toBeNull();
    expect(form.epochs).toBeNull();
    expect('epochs' in form.toArgs(1)).toBe(false);
    form.epochs = 7;
    expect(form.toArgs(1).epochs).toBe(7);
  });

  it('names the advanced setting out of the engine’s range before starting', async () => {
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    const cases: [Partial<Record<'epochs' | 'batchSize' | 'maxLength' | 'seed' | 'maxSteps' | 'maxMinutes', number | null>>, RegExp][] = [
      [{ epochs: 1.5 }, /Epochs must be a whole number from 1 to 1.?000\.$/],
      [{ epochs: 5000 }, /Epochs must be/],
      [{ batchSize: 5000 }, /Batch size must be a whole number from 1 to 1.?024\.$/],
      [{ maxLength: 1000 }, /Max length must be a whole number from 16 to 512\.$/],
      [{ maxLength: 8 }, /Max length must be/],
      [{ seed: null }, /Random seed must be a whole number from 0 to/],
      [{ seed: -1 }, /Random seed must be/],
      [{ maxSteps: 0 }, /Stop after steps must be a whole number from 1 to/],
      [{ maxSteps: 2.5 }, /Stop after steps must be/],
      [{ maxMinutes: 0 }, /Time limit must be from 0\.05 minutes/],
    ];
    for (const [patch, message] of cases) {
      const saved = { epochs: form.epochs, batchSize: form.batchSize, maxLength: form.maxLength, seed: form.seed, maxSteps: form.maxSteps, maxMinutes: form.maxMinutes };
      Object.assign(form, patch);
      expect(form.blocker, JSON.stringify(patch)).toMatch(/^Check the advanced settings: /);
      expect(form.blocker, JSON.stringify(patch)).toMatch(message);
      Object.assign(form, saved);
      expect(form.blocker).toBeNull();
    }
    Object.assign(form, { maxSteps: 20, maxMinutes: 0.5, seed: 0 });
    expect(form.blocker).toBeNull();
    form.name = 'n'.repeat(201);
    expect(form.blocker).toBe('Check the advanced settings: Name can have at most 200 characters; this one has 201.');
    form.name = ` ${'n'.repeat(200)} `; // sent trimmed
    expect(form.blocker).toBeNull();
  });

  it('does not swap a chosen starting model that was removed for another one', async () => {
    models = [model('mine', 'token-classification', 'trained-on-phi'), model('other', 'masked-lm')];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    form.base = 'model:mine';
    expect(form.selectedBase).toBe('model:mine');
    models = models.filter((m) => m.id !== 'mine');
    expect(form.selectedBase).toBe('');
    expect(form.blocker).toBe('The starting model you chose is no longer in the library; choose another one.');
    form.base = 'model:other';
    expect(form.blocker).toBeNull();
  });

  it('says the PHI status the new model gets from its starting model, as the engine will mark it', async () => {
    models = [
      model('distilled', 'token-classification', 'distilled-from-phi-teacher'),
      model('unknown', 'token-classification', 'unknown'),
      model('phi', 'token-classification', 'trained-on-phi'),
    ];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    const expected: [string, string, boolean][] = [
      ['model:distilled', 'distilled-from-phi-teacher', false],
      ['model:unknown', 'unknown', false],
      ['model:phi', 'trained-on-phi', true],
      ['preset:small-2L-128', 'no-phi', false],
    ];
    for (const [base, status, isWarned] of expected) {
      form.base = base;
      expect([form.resultPhi, form.usesPhi], base).toEqual([status, isWarned]);
    }
    datasets = [dataset(1, true)];
    form.base = 'model:distilled';
    expect([form.resultPhi, form.usesPhi]).toEqual(['trained-on-phi', true]);
  });

  it('never says the new model holds no PHI when its starting model is not found', async () => {
    models = [model('phi', 'token-classification', 'trained-on-phi')];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    form.base = 'model:phi';
    expect(form.resultPhi).toBe('trained-on-phi');
    models = []; // removed from the library (another window, the Models screen)
    expect([form.selectedBase, form.resultPhi, form.usesPhi]).toEqual(['', 'unknown', false]);
  });

  it('says before starting that no chosen document is finished yet', async () => {
    datasets = [dataset(1, false, 0), dataset(2, false, 0)];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    form.toggle('datasetIds', 1, true);
    expect(form.blocker).toMatch(/^None of the chosen datasets has documents marked Annotated or Reviewed/);
    datasets = [dataset(1, false, 0), dataset(2, false, 1)];
    const other = new TrainFormState({ models: () => models, datasets: () => datasets });
    await other.loadOptions();
    other.toggle('datasetIds', 1, true);
    other.toggle('datasetIds', 2, true);
    expect(other.blocker).toBeNull(); // one finished document is enough
  });

  it('prefers a pre-trained library model and warns when patient data is involved', async () => {
    models = [model('task', 'token-classification'), model('pre', 'masked-lm')];
    datasets = [dataset(1), dataset(2, true)];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.selectedBase).toBe('model:pre');
    form.toggle('datasetIds', 2, false);
    expect(form.usesPhi).toBe(false);
    form.toggle('devDatasetIds', 2, true);
    expect(form.usesPhi).toBe(true);
    expect(form.toArgs(1)).toMatchObject({ baseModelId: 'pre', devDatasetIds: [2] });
    expect(form.toArgs(1)).not.toHaveProperty('devFraction');
  });

  it('recommends the shipped default student once, and says when it is absent', async () => {
    const student = { ...model('shipped:default-student', 'masked-lm'), isShipped: true };
    models = [student, model('pre', 'masked-lm')];
    vi.mocked(call).mockResolvedValueOnce({
      ...OPTIONS,
      shipped: [
        {
          id: 'shipped:default-student',
          name: 'Default student (shipped)',
          description: 'No PHI: pretrained on public text.',
          phiStatus: 'no-phi',
        },
      ],
      recommendedBaseId: 'shipped:default-student',
    } satisfies TrainOptions);
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.selectedBase).toBe('shipped:default-student');
    expect(form.choices.map((c) => c.value)).not.toContain('model:shipped:default-student');
    expect(form.baseHint).toBe(
      'Recommended: Default student (shipped), ready to fine-tune. No PHI: pretrained on public text.',
    );
    expect(form.usesPhi).toBe(false);
    expect(form.toArgs(1)).toMatchObject({ baseModelId: 'shipped:default-student' });

    const bare = new TrainFormState({ models: () => models, datasets: () => datasets });
    await bare.loadOptions();
    expect(bare.selectedBase).toBe('model:pre');
    expect(bare.baseHint).toMatch(/default student is not installed/);
  });

  it('explains why it cannot start', () => {
    datasets = [];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    expect(form.blocker).toMatch(/Import documents/);
    datasets = [dataset(1)];
    const again = new TrainFormState({ models: () => models, datasets: () => datasets });
    expect(again.blocker).toMatch(/starting model/); // options not loaded: no presets yet
  });

  it('notes when the starting model’s classifier is replaced, as the engine decides', async () => {
    const labelled = (id: string, task: string, labels: string[]): ModelInfo => ({ ...model(id, task), labels });
    const generic = labelled('imported', 'token-classification', ['LABEL_0', 'LABEL_1', 'LABEL_2', 'LABEL_3', 'LABEL_4']);
    const disease = labelled('disease', 'token-classification', ['O', 'B-Disease', 'I-Disease']);
    const relations = labelled('gad', 'sequence-classification', ['false', 'true']);
    // Generic LABEL_n labels: a new head for either task.
    expect(headNote(generic, 'ner')).toBe(
      'Its classifier is for other labels (LABEL_0…LABEL_4): a new one is trained for this project’s entity types; the encoder is kept.',
    );
    expect(headNote(generic, 're')).toMatch(/\(LABEL_0…LABEL_4\).*relation types/);
    // A head for the same task with named labels is kept; for the other task it is replaced.
    expect(headNote(disease, 'ner')).toBeNull();
    expect(headNote(disease, 're')).toMatch(/^Its classifier is for other labels \(Disease\): .*relation types/);
    expect(headNote(relations, 're')).toBeNull();
    expect(headNote(relations, 'ner')).toMatch(/\(false, true\).*entity types/);
    // No classifier to replace: a base or masked-LM model.
    expect(headNote(model('base', 'masked-lm'), 'ner')).toBeNull();

    models = [generic, disease, { ...generic, id: 'shipped:student', name: 'student', isShipped: true }];
    const form = new TrainFormState({ models: () => models, datasets: () => datasets });
    await form.loadOptions();
    expect(form.headNote).toBeNull(); // the preset
    form.base = 'model:imported';
    expect(form.headNote).toMatch(/^Its classifier is for other labels \(LABEL_0…LABEL_4\)/);
    form.base = 'model:disease';
    expect(form.headNote).toBeNull();
    form.task = 're';
    expect(form.headNote).toMatch(/\(Disease\)/);
  });
});
