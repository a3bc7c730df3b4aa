import { describe, expect, it } from 'vitest';
import { firstSteps, hiddenFirstSteps, hideFirstSteps } from './first-steps.ts';
import { nextToAnnotate } from './next-document.ts';

describe('Getting started', () => {
  it('is hidden per project once the user hides it, and a damaged entry hides nothing', () => {
    const kept = new Map<string, string>();
    const storage = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
    expect(hiddenFirstSteps(storage)).toEqual([]);
    hideFirstSteps(storage, 3);
    hideFirstSteps(storage, 3);
    hideFirstSteps(storage, 7);
    expect(hiddenFirstSteps(storage)).toEqual([3, 7]);
    for (const damaged of ['{', '"x"', '{"a":1}', '[1.5,"2",null]']) {
      kept.set('benchtop.firstStepsHidden', damaged);
      expect(hiddenFirstSteps(storage), damaged).toEqual([]);
    }
  });

  it('on a new empty project, says what each step is and none is done', () => {
    const steps = firstSteps({ entityTypes: 0, documents: 0, finished: 0, runs: 0 });
    expect(steps.map((s) => s.isDone)).toEqual([false, false, false, false]);
    expect(steps.map((s) => s.view)).toEqual([null, 'documents', 'annotate', 'train']);
    expect(steps[0]!.detail).toContain('entity types');
    expect(steps[2]!.detail).toContain('Only documents marked Annotated or Reviewed teach the model');
  });

  it('counts what the project holds; a handful of annotated documents is not yet enough', () => {
    const steps = firstSteps({ entityTypes: 3, documents: 25, finished: 4, runs: 0 });
    expect(steps.map((s) => s.isDone)).toEqual([true, true, false, false]);
    expect(steps[0]!.detail).toBe('3 entity types in the label schema below; add or rename them there.');
    expect(steps[1]!.detail).toBe('25 documents imported.');
    expect(steps[2]!.detail).toBe('4 documents marked Annotated or Reviewed: 20 or more give a first model something to learn from.');
    const later = firstSteps({ entityTypes: 1, documents: 1, finished: 20, runs: 1 });
    expect(later.map((s) => s.isDone)).toEqual([true, true, true, true]);
    expect(later[0]!.detail).toBe('1 entity type in the label schema below; add or rename them there.');
  });
});

describe('Annotate without a document open', () => {
  const lister = (byStatus: Record<string, number[]>) => {
    const asked: (string | undefined)[] = [];
    const list = (a: { status?: string }) => {
      asked.push(a.status);
      return Promise.resolve({ items: (byStatus[a.status ?? 'any'] ?? []).map((id) => ({ id })) });
    };
    return { asked, list };
  };

  it('opens the first document in progress, else the first new one, else the first', async () => {
    expect(await nextToAnnotate(1, lister({ 'in-progress': [7], new: [3], any: [1] }).list)).toBe(7);
    const l = lister({ new: [3], any: [1] });
    expect(await nextToAnnotate(1, l.list)).toBe(3);
    expect(l.asked).toEqual(['in-progress', 'new']);
    expect(await nextToAnnotate(1, lister({ any: [1] }).list)).toBe(1);
  });

  it('gives null for a project without documents', async () => {
    expect(await nextToAnnotate(1, lister({}).list)).toBeNull();
  });
});
