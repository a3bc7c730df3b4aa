// The label schema the Projects screen edits is always the open project's, and says so: answers
// for a project opened earlier are dropped, and schemaProjectId names the project shown.
import { describe, expect, it, vi } from 'vitest';
import type { LabelSchema } from '../../../engine/api/contract.ts';

/** schema:get answers the test releases by hand, in any order. */
const pending = new Map<number, (s: LabelSchema) => void>();
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string, args: { projectId: number }) =>
    name === 'schema:get' ? new Promise((resolve) => pending.set(args.projectId, resolve)) : Promise.resolve([]),
  ),
  messageOf: (e: unknown) => String(e),
  on: () => () => {},
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
});
