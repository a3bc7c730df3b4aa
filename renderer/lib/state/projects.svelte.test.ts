// The label schema the Projects screen edits is always the open project's, and says so: answers
// for a project opened earlier are dropped, and schemaProjectId names the project shown. The
// screen's notice that deleted documents are still in the workspace comes and goes with the
// engine's answer.
import { describe, expect, it, vi } from 'vitest';
import type { ApiErrorInfo, Events, LabelSchema } from '../../../engine/api/contract.ts';

/** schema:get answers the test releases by hand, in any order. */
const pending = new Map<number, (s: LabelSchema) => void>();
/** What projects:deletion-problem answers. */
let problem: ApiErrorInfo | null = null;
const listeners: ((c: Events['workspace:changed']) => void)[] = [];
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string, args: { projectId: number }) =>
    name === 'schema:get'
      ? new Promise((resolve) => pending.set(args.projectId, resolve))
      : Promise.resolve(name === 'projects:deletion-problem' ? { problem } : []),
  ),
  messageOf: (e: unknown) => String(e),
  on: (name: string, l: (c: Events['workspace:changed']) => void) => {
    if (name === 'workspace:changed') listeners.push(l);
    return () => {};
  },
}));
const app = { projectId: null as number | null, openProject: (id: number | null) => void (app.projectId = id) };
vi.mock('./app.svelte.ts', () => ({ app }));
const { projects } = await import('./projects.svelte.ts');

const schemaOf = (color: string): LabelSchema => ({ entityTypes: [{ name: 'Disease', color }], relationTypes: [] });

describe('projects state', () => {
  it('shows the schema of the project opened last, and which project it is, whatever order answers come in', async () => {
    const first = projects.open(1);
    const second = projects.open(2);
    expect(projects.schemaProjectId).toBeNull(); // nothing loaded yet: the editor waits
    pending.get(2)!(schemaOf('#222222'));
    await second;
    pending.get(1)!(schemaOf('#111111'));
    await first;
    expect(app.projectId).toBe(2);
    expect(projects.schemaProjectId).toBe(2);
    expect(projects.schema.entityTypes[0]?.color).toBe('#222222');
  });

  it('shows why deleted documents are still in the workspace when the engine says so, and no longer once they are gone', async () => {
    await projects.refresh();
    expect(projects.deletionProblem).toBeNull();
    problem = {
      code: 'workspace-unavailable',
      message: 'The documents of the deleted project "Ward 7" are still in /data/workspace.sqlite: the file is damaged, …',
    };
    // The engine kept the problem and says the project list changed.
    for (const l of listeners) l({ projectId: null, what: 'projects' });
    await vi.waitFor(() => expect(projects.deletionProblem).toEqual(problem));
    expect(projects.error).toBeNull();
    problem = null;
    for (const l of listeners) l({ projectId: 7, what: 'projects' }); // its rows are all gone
    await vi.waitFor(() => expect(projects.deletionProblem).toBeNull());
  });
});
