import { describe, expect, it, vi } from 'vitest';
import type {
  DatasetInfo,
  EvaluationError,
  EvaluationReport,
  JobInfo,
  ModelInfo,
} from '../../../engine/api/contract.ts';

let jobs: JobInfo[] = [];
/** What the workspace kept, by project (evaluate:latest). */
let kept = new Map<number, JobInfo>();
let changed = 0;
vi.mock('../../lib/api.ts', () => ({
  call: vi.fn((name: string, args: { projectId?: number }) =>
    name === 'run:list-jobs'
      ? Promise.resolve(jobs)
      : name === 'evaluate:changes'
        ? Promise.resolve({ changedDocuments: changed })
        : name === 'evaluate:latest'
          ? Promise.resolve(kept.get(args.projectId ?? 0) ?? null)
          : Promise.reject(new Error(name)),
  ),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
}));
const { call } = await import('../../lib/api.ts');
const { EvaluationState, errorHighlight, labelName } = await import('./evaluation.svelte.ts');

const mention = (key: string, type: string, start: number, text: string) => ({
  key,
  type,
  start,
  end: start + text.length,
  text,
});
const SENTENCE = 'Lithium causes tremor.';
const pairError = (
  kind: EvaluationError['kind'],
  reason: EvaluationError['reason'],
  gold: string,
  predicted: string,
): EvaluationError => ({
  kind,
  reason,
  documentId: 3,
  documentName: 'pmid-3',
  type: kind === 'false-positive' ? predicted : gold,
  start: 0,
  end: SENTENCE.length,
  text: SENTENCE,
  relation: {
    arg1: mention('T1', 'Chemical', 0, 'Lithium'),
    arg2: mention('T2', 'Disease', 15, 'tremor'),
    gold,
    predicted,
    score: 0.734,
  },
});

const score = { precision: 0, recall: 0, f1: 0 };
const RE_REPORT: EvaluationReport = {
  modelId: 're',
  modelName: 'RE',
  task: 're',
  documents: 1,
  perType: [{ name: 'CID', ...score }],
  micro: { name: 'micro average', ...score },
  macro: { name: 'macro average', ...score },
  confusion: {
    labels: ['false', 'CID', 'Treats'],
    counts: [
      [0, 1, 0],
      [0, 0, 1],
      [0, 0, 0],
    ],
  },
  negativeLabel: 'false',
  errors: [
    pairError('false-positive', 'spurious', 'false', 'CID'),
    pairError('false-positive', 'type', 'CID', 'Treats'),
    pairError('false-negative', 'type', 'CID', 'Treats'),
  ],
  errorsOmitted: 0,
  accuracy: 0,
};

describe('evaluation state', () => {
  it('outlines both mentions of a relation error and names the labels in words', () => {
    const h = errorHighlight(RE_REPORT.errors[0]!, 'false');
    expect(h.spans).toEqual([
      { start: 0, end: 7 },
      { start: 15, end: 21 },
    ]);
    expect(h.label).toBe('Lithium → tremor: annotated no relation, the model said CID (73 %)');
    expect(labelName('false', 'false')).toBe('no relation');
    expect(labelName('CID', 'false')).toBe('CID');
  });

  it('outlines the span of an entity error', () => {
    const e: EvaluationError = {
      kind: 'false-negative',
      reason: 'missed',
      documentId: 1,
      documentName: 'd',
      type: 'Disease',
      start: 4,
      end: 9,
      text: 'fever',
    };
    expect(errorHighlight(e)).toEqual({
      start: 4,
      end: 9,
      label: 'Annotated as Disease: the model found nothing here',
    });
  });

  it('restores the latest evaluation and filters relation errors by kind and label', async () => {
    jobs = [
      {
        jobId: 'e1',
        kind: 'evaluate',
        projectId: 1,
        startedAt: '',
        status: 'completed',
        progress: null,
        report: RE_REPORT,
      },
    ];
    const models = [{ id: 're', name: 'RE', task: 'sequence-classification' } as ModelInfo];
    const ev = new EvaluationState({ models: () => models, datasets: () => [] });
    await ev.restore(1);
    expect(ev.report).toBe(RE_REPORT);
    expect(ev.evaluatedAt).toBeNull(); // no time known
    expect(ev.errors).toHaveLength(3);
    ev.kindFilter = 'false-positive';
    expect(ev.errors).toHaveLength(2);
    ev.typeFilter = 'Treats';
    expect(ev.errors.map((e) => e.relation?.gold)).toEqual(['CID']);
    ev.kindFilter = 'all';
    ev.typeFilter = 'CID';
    expect(ev.errors.map((e) => e.kind)).toEqual(['false-positive', 'false-negative']);
    // Another project shows none of this project's results, and switching back restores them.
    await ev.showProject(2);
    expect(ev.report).toBeNull();
    expect(ev.jobId).toBeNull();
    await ev.showProject(1);
    expect(ev.report).toBe(RE_REPORT);
  });

  it('shows the report the workspace kept after Benchtop restarted, and one the engine holds before it', async () => {
    const job = (jobId: string, projectId: number, report: EvaluationReport): JobInfo => ({
      jobId, kind: 'evaluate', projectId, startedAt: '2026-11-24T10:00:00.000Z', status: 'completed', progress: null, report,
    });
    // Restarted: the engine holds no job; the workspace kept project 11's latest report.
    jobs = [];
    kept = new Map([[11, { ...job('k11', 11, RE_REPORT), datasetIds: [2] }]]);
    const models = ['other', 're'].map((id) => ({ id, name: id, task: 'sequence-classification' }) as ModelInfo);
    const datasets = [1, 2, 3].map((id) => ({ id, finishedCount: 2 }) as DatasetInfo);
    const ev = new EvaluationState({ models: () => models, datasets: () => datasets });
    await ev.showProject(11);
    expect([ev.jobId, ev.state, ev.report]).toEqual(['k11', 'completed', RE_REPORT]);
    expect(ev.selectedModelId).toBe('re'); // the report's model, not the first one
    expect(ev.chosenDatasetIds).toEqual([2]); // the datasets it compared with, not all by default
    await ev.showProject(12);
    expect(ev.report).toBeNull();
    // A later evaluation the engine holds comes first.
    const later = { ...RE_REPORT, documents: 2 };
    jobs = [job('e11', 11, later)];
    await ev.showProject(11);
    expect([ev.jobId, ev.report]).toEqual(['e11', later]);
    kept = new Map();
  });

  it('is as it was left when the screen comes back to the same project; another starts afresh', async () => {
    const job = (projectId: number, report: EvaluationReport): JobInfo => ({
      jobId: `e${projectId}`,
      kind: 'evaluate',
      projectId,
      startedAt: '',
      status: 'completed',
      progress: null,
      report,
    });
    jobs = [job(1, RE_REPORT)];
    const models = ['re', 're2'].map((id) => ({ id, name: id, task: 'sequence-classification' }) as ModelInfo);
    const sets = [1, 2].map((id) => ({ id, finishedCount: 2 }) as DatasetInfo);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    await ev.showProject(1);
    ev.modelId = 're2';
    ev.toggle(2, false);
    ev.kindFilter = 'false-negative';
    ev.typeFilter = 'CID';
    ev.opened = ev.errors[0]!;
    const left = { model: 're2', datasets: [1], kind: 'false-negative', type: 'CID', opened: RE_REPORT.errors[2] };
    const shown = (): typeof left => ({
      model: ev.selectedModelId,
      datasets: ev.chosenDatasetIds,
      kind: ev.kindFilter,
      type: ev.typeFilter,
      opened: ev.opened ?? undefined,
    });
    expect(shown()).toEqual(left);
    // "Review in the editor", then back to Evaluate.
    await ev.showProject(1);
    expect(shown()).toEqual(left);
    expect(ev.report).toBe(RE_REPORT);
    // Another project: its own datasets, all of them, and no filter hiding its mistakes.
    await ev.showProject(2);
    expect({ ...shown(), report: ev.report }).toEqual({ ...left, datasets: [1, 2], kind: 'all', type: 'all', opened: undefined, report: null });
    // A report without mistakes of the filtered type lists all its mistakes, not none.
    ev.typeFilter = 'Treats';
    jobs = [job(2, { ...RE_REPORT, errors: RE_REPORT.errors.filter((e) => e.type !== 'Treats') })];
    await ev.restore(2);
    expect(ev.typeFilter).toBe('all');
    expect(ev.errors).toHaveLength(2);
  });

  it('says how many documents compared with have changed since the evaluation shown, and forgets it for the next', async () => {
    jobs = [{ jobId: 'e7', kind: 'evaluate', projectId: 7, startedAt: '', status: 'completed', progress: null, report: RE_REPORT }];
    const models = [{ id: 're', name: 'RE', task: 'sequence-classification' } as ModelInfo];
    const ev = new EvaluationState({ models: () => models, datasets: () => [{ id: 1, finishedCount: 2 } as DatasetInfo] });
    await ev.showProject(7);
    changed = 2; // two documents edited in the editor meanwhile
    await ev.checkChanges();
    expect(ev.changedDocuments).toBe(2);
    expect(vi.mocked(call)).toHaveBeenCalledWith('evaluate:changes', { jobId: 'e7' });
    await ev.showProject(8);
    expect(ev.changedDocuments).toBe(0);
    changed = 0;
  });

  it('sorts the score table by a column, either way, the averages aside, and keeps the order for the next report', async () => {
    const row = (name: string, tp: number, fp: number, fn: number) => ({
      name,
      precision: tp + fp === 0 ? 0 : tp / (tp + fp),
      recall: tp + fn === 0 ? 0 : tp / (tp + fn),
      f1: tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn),
      tp,
      fp,
      fn,
      support: tp + fn,
    });
    // Chemical: nothing marked, so no precision (a dash): last whichever way precision is sorted.
    const report: EvaluationReport = {
      ...RE_REPORT,
      task: 'ner',
      perType: [row('Chemical', 0, 0, 3), row('Disease', 4, 1, 4), row('Gene', 1, 1, 0)],
    };
    jobs = [{ jobId: 'e9', kind: 'evaluate', projectId: 9, startedAt: '', status: 'completed', progress: null, report }];
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    const ev = new EvaluationState({ models: () => models, datasets: () => [] });
    await ev.showProject(9);
    const order = (): string[] => ev.scoreRows.map((r) => r.name);
    expect([order(), ev.scoreSort]).toEqual([['Chemical', 'Disease', 'Gene'], null]);
    ev.sortScores('precision');
    expect([order(), ev.scoreSort]).toEqual([['Disease', 'Gene', 'Chemical'], { column: 'precision', isDescending: true }]);
    ev.sortScores('precision');
    expect(order()).toEqual(['Gene', 'Disease', 'Chemical']);
    ev.sortScores('support');
    expect(order()).toEqual(['Disease', 'Chemical', 'Gene']);
    ev.sortScores('name');
    expect([order(), ev.scoreSort]).toEqual([['Chemical', 'Disease', 'Gene'], { column: 'name', isDescending: false }]);
    ev.sortScores('name');
    expect(order()).toEqual(['Gene', 'Disease', 'Chemical']);
    ev.sortScores('fp');
    expect(order()).toEqual(['Disease', 'Gene', 'Chemical']); // ties by name
    // Another project's report, and back: the order chosen stays.
    await ev.showProject(10);
    await ev.showProject(9);
    expect([order(), ev.scoreSort]).toEqual([['Disease', 'Gene', 'Chemical'], { column: 'fp', isDescending: true }]);
  });

  it('keeps the datasets the user unticked unticked, and ticks one imported since as by default', () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    let sets = [1, 2].map((id) => ({ id, finishedCount: 2 }) as DatasetInfo);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    ev.toggle(2, false);
    expect(ev.chosenDatasetIds).toEqual([1]);
    // Another annotated set imported on the Documents screen meanwhile.
    sets = [...sets, { id: 3, finishedCount: 5 } as DatasetInfo];
    expect(ev.chosenDatasetIds).toEqual([1, 3]);
    ev.chooseAll(false);
    sets = [...sets, { id: 4, finishedCount: 1 } as DatasetInfo];
    expect(ev.chosenDatasetIds).toEqual([4]);
  });

  it('says before starting that the chosen datasets have nothing finished to compare with', () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    let sets = [{ id: 1, finishedCount: 0 } as DatasetInfo, { id: 2, finishedCount: 0 } as DatasetInfo];
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    expect(ev.blocker).toMatch(/^None of the chosen datasets has documents marked Annotated or Reviewed/);
    ev.toggle(1, false);
    ev.toggle(2, false);
    expect(ev.blocker).toMatch(/^Choose at least one dataset/);
    sets = [{ id: 1, finishedCount: 0 } as DatasetInfo, { id: 2, finishedCount: 4 } as DatasetInfo];
    const again = new EvaluationState({ models: () => models, datasets: () => sets });
    expect(again.blocker).toBeNull();
  });

  it('says that a project without documents has nothing to compare with, not to choose a dataset', () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    const ev = new EvaluationState({ models: () => models, datasets: () => [] });
    expect(ev.blocker).toMatch(/^This project has no documents to compare with: import annotated documents/);
  });

  it('chooses all or none of many datasets, and never one the project does not have', () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    const sets = [1, 2, 3, 4].map((id) => ({ id, finishedCount: 2 }) as DatasetInfo);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    ev.chooseAll(false);
    expect(ev.chosenDatasetIds).toEqual([]);
    ev.toggle(3, true);
    expect(ev.chosenDatasetIds).toEqual([3]);
    ev.chooseAll(true);
    expect(ev.chosenDatasetIds).toEqual([1, 2, 3, 4]);
    ev.datasetIds = [2, 99]; // 99: a dataset of another project, or one deleted since
    expect(ev.chosenDatasetIds).toEqual([2]);
  });

  it('leaves the datasets the chosen model learned from unticked at first, and names them when ticked', async () => {
    const models = [
      { id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo,
      { id: 'other', name: 'Other', task: 'token-classification' } as ModelInfo,
    ];
    const sets = [1, 2, 3].map((id) => ({ id, name: `set ${id}`, finishedCount: 2 }) as DatasetInfo);
    const entry = (datasetId: number | null, path: 'direct' | 'inherited', weight: number | null = null) => ({ datasetId, path, weight });
    const lineages: Record<string, unknown[]> = {
      // Trained on set 1 and on its base's set 2.
      ner: [entry(null, 'direct'), entry(1, 'direct'), entry(2, 'inherited', 1)],
      other: [entry(1, 'direct'), entry(2, 'direct'), entry(3, 'direct')],
    };
    const answer = (name: string, args?: unknown): Promise<unknown> =>
      name === 'models:get-lineage'
        ? Promise.resolve({ entries: lineages[(args as { modelId: string }).modelId] })
        : Promise.reject(new Error(name));
    vi.mocked(call).mockImplementation(answer as typeof call);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    expect(ev.chosenDatasetIds).toEqual([1, 2, 3]); // not known yet
    await ev.loadTrainedOn('ner');
    expect([...ev.trainedOnIds]).toEqual([1, 2]);
    expect(ev.chosenDatasetIds).toEqual([3]);
    expect(ev.chosenTrainedOnNames).toEqual([]);
    ev.toggle(1, true);
    expect(ev.chosenTrainedOnNames).toEqual(['set 1']);
    ev.chooseAll(true);
    expect(ev.chosenDatasetIds).toEqual([1, 2, 3]);
    expect(ev.chosenTrainedOnNames).toEqual(['set 1', 'set 2']);
    // A model that learned from every dataset: all are chosen (with the warning), not none.
    ev.datasetIds = null;
    ev.modelId = 'other';
    await ev.loadTrainedOn('other');
    expect(ev.chosenDatasetIds).toEqual([1, 2, 3]);
    expect(ev.chosenTrainedOnNames).toEqual(['set 1', 'set 2', 'set 3']);
    // An answer for a model no longer selected changes nothing.
    await ev.loadTrainedOn('ner');
    expect(ev.trainedOn.modelId).toBe('other');
  });

  it('marks the datasets a distilled student’s teachers learned from, unticked at first, and its own once as its own', async () => {
    const models = [{ id: 'student', name: 'Student', task: 'token-classification' } as ModelInfo];
    const sets = [1, 2, 3, 4, 5].map((id) => ({ id, name: `set ${id}`, finishedCount: 2 }) as DatasetInfo);
    // As the engine's lineage walks it (engine/store/lineage.ts): the student's own rows (its
    // teacher, transfer text, set 2 mixed in as private labelled data; set 1 as a dev set of the
    // base it started from), then the teacher's (fine-tuned on sets 1 and 2, set 3 only measuring
    // it, taught itself by a teacher fine-tuned on set 4) on the path 'teacher'.
    const entries = [
      { datasetId: null, path: 'direct', weight: null },
      { datasetId: null, path: 'direct', weight: null },
      { datasetId: 2, path: 'direct', weight: 0.3 },
      { datasetId: 1, path: 'inherited', weight: 0 },
      { datasetId: 1, path: 'teacher', weight: null },
      { datasetId: 2, path: 'teacher', weight: null },
      { datasetId: 3, path: 'teacher', weight: 0 },
      { datasetId: null, path: 'teacher', weight: null },
      { datasetId: 4, path: 'teacher', weight: null },
    ];
    vi.mocked(call).mockImplementation(((name: string) =>
      name === 'models:get-lineage' ? Promise.resolve({ entries }) : Promise.reject(new Error(name))) as typeof call);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    await ev.loadTrainedOn('student');
    expect([...ev.trainedOnIds]).toEqual([2]);
    expect([...ev.teacherTrainedOnIds]).toEqual([1, 4]);
    // A teacher's learning outranks a dev set of the student's base; a teacher's dev set is fair.
    expect([...ev.pickedOnIds]).toEqual([]);
    expect(ev.chosenDatasetIds).toEqual([3, 5]);
    expect(ev.chosenTeacherTrainedOnNames).toEqual([]);
    expect(ev.hasUnseenToCompare).toBe(true);
    ev.toggle(1, true);
    expect(ev.chosenTeacherTrainedOnNames).toEqual(['set 1']);
    expect(ev.chosenTrainedOnNames).toEqual([]);
    ev.chooseAll(true);
    expect(ev.chosenTeacherTrainedOnNames).toEqual(['set 1', 'set 4']);
    expect(ev.chosenTrainedOnNames).toEqual(['set 2']);

    // Only what the teacher learned from is finished: no fair figure yet, and all are ticked.
    const few = sets.map((d) => ({ ...d, finishedCount: d.id === 1 ? 3 : 0 }));
    const again = new EvaluationState({ models: () => models, datasets: () => few });
    await again.loadTrainedOn('student');
    expect(again.hasUnseenToCompare).toBe(false);
    expect(again.chosenDatasetIds).toEqual([1, 2, 3, 4, 5]);
    expect(again.blocker).toBeNull();
  });

  it('tells a dataset that only picked the best checkpoint from one the model learned from', async () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    const sets = [1, 2, 3].map((id) => ({ id, name: `set ${id}`, finishedCount: 2 }) as DatasetInfo);
    // Trained on set 1 with set 2 as its dev data (recorded with weight 0, as training.ts does);
    // its base model also used set 1 as dev data, which does not make set 1 "picked only".
    const entries = [
      { datasetId: 1, path: 'direct', weight: null },
      { datasetId: 2, path: 'direct', weight: 0 },
      { datasetId: 1, path: 'inherited', weight: 0 },
    ];
    vi.mocked(call).mockImplementation(((name: string) =>
      name === 'models:get-lineage' ? Promise.resolve({ entries }) : Promise.reject(new Error(name))) as typeof call);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    await ev.loadTrainedOn('ner');
    expect([...ev.trainedOnIds]).toEqual([1]);
    expect([...ev.pickedOnIds]).toEqual([2]);
    // Neither is ticked at first: scores on a dev dataset are flattered too.
    expect(ev.chosenDatasetIds).toEqual([3]);
    ev.chooseAll(true);
    expect(ev.chosenTrainedOnNames).toEqual(['set 1']);
    expect(ev.chosenPickedOnNames).toEqual(['set 2']);
  });

  it('ticks every dataset when those the model did not learn from have nothing to compare with', async () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    // Trained on sets 1 and 2 (the annotated ones); set 3 and 4 were imported but not annotated.
    const sets = [2, 3, 0, 0].map((finishedCount, i) => ({ id: i + 1, name: `set ${i + 1}`, finishedCount }) as DatasetInfo);
    const entries = [1, 2].map((datasetId) => ({ datasetId, path: 'direct' }));
    vi.mocked(call).mockImplementation(((name: string) =>
      name === 'models:get-lineage' ? Promise.resolve({ entries }) : Promise.reject(new Error(name))) as typeof call);
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    await ev.loadTrainedOn('ner');
    expect(ev.chosenDatasetIds).toEqual([1, 2, 3, 4]);
    expect(ev.blocker).toBeNull();
    expect(ev.chosenTrainedOnNames).toEqual(['set 1', 'set 2']);
    expect(ev.hasUnseenToCompare).toBe(false); // the warning says what to do for a fair figure
    // Once an unseen dataset has a finished document, only the unseen ones are ticked again.
    sets[3] = { ...sets[3]!, finishedCount: 1 };
    const again = new EvaluationState({ models: () => models, datasets: () => sets });
    await again.loadTrainedOn('ner');
    expect(again.chosenDatasetIds).toEqual([3, 4]);
    expect(again.hasUnseenToCompare).toBe(true);
  });

  it('starts one evaluation when Evaluate is pressed twice before the first answers', async () => {
    const models = [{ id: 'ner', name: 'NER', task: 'token-classification' } as ModelInfo];
    const sets = [{ id: 1, finishedCount: 2 } as DatasetInfo];
    const ev = new EvaluationState({ models: () => models, datasets: () => sets });
    let answer: (v: { jobId: string }) => void = () => {};
    vi.mocked(call).mockImplementation((name: string) =>
      name === 'evaluate:start'
        ? new Promise((resolve) => (answer = resolve))
        : Promise.reject(new Error(name)),
    );
    const first = ev.start(1);
    const second = ev.start(1);
    answer({ jobId: 'e1' });
    await Promise.all([first, second]);
    expect(vi.mocked(call).mock.calls.filter(([n]) => n === 'evaluate:start')).toHaveLength(1);
    expect(ev.jobId).toBe('e1');
  });
});

describe('a report found again', () => {
  it('says when it was made; one that finishes while shown does not', async () => {
    const kept7 = { jobId: 'old', kind: 'evaluate', projectId: 7, startedAt: '2026-11-20T09:30:00.000Z', status: 'completed', progress: null, report: RE_REPORT } as JobInfo;
    // (Tests above replace the fake engine's answers.)
    vi.mocked(call).mockImplementation(((name: string, args: { projectId?: number }) =>
      Promise.resolve(name === 'run:list-jobs' ? [] : name === 'evaluate:latest' ? (args.projectId === 7 ? kept7 : null) : { changedDocuments: 0 })) as typeof call);
    const ev = new EvaluationState({ models: () => [], datasets: () => [] });
    await ev.showProject(7);
    expect(ev.report).toBe(RE_REPORT);
    expect(ev.evaluatedAt).toBe('2026-11-20T09:30:00.000Z');
    await ev.showProject(8);
    expect(ev.evaluatedAt).toBeNull();
  });
});
