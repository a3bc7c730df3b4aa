// A project deletion that the workspace itself stops (a damaged page, a read-only file) does not
// fail without a word: projects:deletion-problem names the deleted project, the file and what is
// wrong (never a document's text), again at each start while the rows remain, and answers null
// once the purge has finished.
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDataset } from '../store/datasets.ts';
import { WORKSPACE_FILE, openWorkspace } from '../store/db.ts';
import { insertDocuments } from '../store/documents.ts';
import { createProject, deleteProject, listDeletingProjects } from '../store/projects.ts';
import { sql } from '../store/sql.ts';
import { damageTable } from '../store/test-helpers.ts';
import type { ApiContext } from './context.ts';
import type { Engine } from './handlers.ts';
import { JobRegistry } from './job-registry.ts';
import { PURGE_RETRY_MS, deletionProblem, purgeDeletedProjects } from './project-purge.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

const TEXT = 'Quixmarchova Ezekiel, MRN 5510912, admitted with chest pain.';

/** Adds project `name` with three annotated notes to the closed workspace at `dir`, and deletes it. */
function addDeletedProject(dir: string, name: string): ReturnType<typeof openWorkspace> {
  const ws = openWorkspace(dir);
  const projectId = createProject(ws.write, { name }).id;
  const datasetId = createDataset(ws.write, { projectId, name: 'notes', containsPhi: true }).id;
  const notes = Array.from({ length: 3 }, (_, i) => ({
    id: `n${i}`,
    text: TEXT,
    entities: [{ id: 'T1', type: 'Disease', spans: [{ start: 48, end: 58 }], text: 'chest pain' }],
    relations: [],
  }));
  insertDocuments(ws.write, notes, { projectId, datasetId, format: 'brat' });
  deleteProject(ws.write, projectId);
  return ws;
}

/**
 * Resolves at the engine's next change of the projects: of the list as a whole (`whole`: the
 * problem kept or cleared), or of one project (its rows all gone).
 */
function projectsChanged(engine: Engine, whole: boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = engine.subscribe((name, payload) => {
      const p = payload as { projectId?: number | null; what?: string };
      if (name === 'workspace:changed' && p.what === 'projects' && (p.projectId === null) === whole) {
        stop();
        resolve();
      }
    });
  });
}

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  vi.useRealTimers();
});

describe('a project deletion the workspace stops', () => {
  it('names the deleted project, the damaged file and what to do, at each start, until the rows are gone', async () => {
    t = openTestEngine('benchtop-purge-damaged-');
    await t.engine.close();
    const restore = damageTable(addDeletedProject(t.dir, 'Ward 7'), t.dir, 'entities');
    const file = join(t.dir, WORKSPACE_FILE);

    for (let start = 0; start < 2; start++) {
      await projectsChanged(await reopen(t), true);
      const { problem } = await t.call('projects:deletion-problem', {});
      expect(problem?.code).toBe('workspace-unavailable');
      expect(problem?.message).toMatch(
        new RegExp(`^The documents of the deleted project "Ward 7" are still in ${file}: the file is damaged, so they cannot be removed from it\\. .*export the projects you keep`),
      );
      expect(problem?.message).not.toMatch(/Quixmarchova|chest pain|MRN/);
      // The rest of the workspace still answers.
      expect((await t.call('projects:list', {})).map((p) => p.name)).toEqual([expect.stringMatching(/Demo/)]);
    }

    await t.engine.close();
    restore(); // the page restored from a backup
    const finished = projectsChanged(await reopen(t), false);
    expect(await t.call('projects:deletion-problem', {})).toEqual({ problem: null }); // none kept from before
    await finished;
    expect(await t.call('projects:deletion-problem', {})).toEqual({ problem: null });
    await t.engine.close();
    const ws = openWorkspace(t.dir);
    expect(listDeletingProjects(ws.read)).toEqual([]);
    ws.close();
  }, 10_000);

  it('says a read-only workspace stops it, tries again by itself, and clears once it went through', async () => {
    t = openTestEngine('benchtop-purge-readonly-');
    await t.engine.close();
    const ws = addDeletedProject(t.dir, 'Ward 8');
    const events: unknown[] = [];
    const ctx: ApiContext = {
      ws,
      dataDir: t.dir,
      resourcesDir: t.dir,
      version: 'test',
      jobs: new JobRegistry(),
      emit: (name, payload) => events.push({ name, payload }),
    };
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      ws.write.exec(sql`PRAGMA query_only = 1`); // every write is refused as from a read-only file
      await purgeDeletedProjects(ctx);
      expect(deletionProblem(ctx)).toEqual({
        code: 'workspace-unwritable',
        message:
          `The documents of the deleted project "Ward 8" are still in ${join(t.dir, WORKSPACE_FILE)}: it or its folder is ` +
          'read-only; make both writable. Their removal then finishes by itself (Benchtop tries again every minute and at each start).',
      });
      expect(events).toEqual([{ name: 'workspace:changed', payload: { projectId: null, what: 'projects' } }]);

      ws.write.exec(sql`PRAGMA query_only = 0`);
      vi.advanceTimersByTime(PURGE_RETRY_MS - 1);
      await tick();
      expect(deletionProblem(ctx)).not.toBeNull(); // not yet tried again
      vi.advanceTimersByTime(1);
      for (let turn = 0; turn < 1000 && deletionProblem(ctx) !== null; turn++) await tick();
      expect(deletionProblem(ctx)).toBeNull();
      expect(listDeletingProjects(ws.read)).toEqual([]);
      expect(events.at(-1)).toEqual({ name: 'workspace:changed', payload: { projectId: null, what: 'projects' } });
    } finally {
      ctx.jobs.isClosing = true;
      ws.close();
    }
  });
});

/** Opens the engine on `t`'s data folder again, as Benchtop starting does. */
async function reopen(test: TestEngine): Promise<Engine> {
  await test.restart();
  return test.engine;
}
