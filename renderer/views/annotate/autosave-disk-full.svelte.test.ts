// Tests for the editor's autosave when the workspace cannot be written (a full disk): the edits
// stay in the page, the message says why and that they will be saved, and they are saved, in
// order and without being made again, once there is room. Until 2026-11-24 they were dropped and
// the document reloaded as last saved.
import { describe, expect, it, vi } from 'vitest';
import type { AnnotationEdit } from '../../../engine/api/contract.ts';
import { AnnotationEditor } from './editor.svelte.ts';
import { SCHEMA, at, detail } from './test-document.ts';

const apiError = (code: string, message: string): Error => Object.assign(new Error(message), { name: 'ApiError', code });

const FULL =
  '/data/workspace.sqlite could not be written, so nothing of this change was saved: the disk is full; free some space, then try again.';

describe('autosave on a full disk', () => {
  it('keeps the edits in the page and saves them, in order, once the disk has room', async () => {
    let full = true;
    const saved: AnnotationEdit[][] = [];
    const bases: number[] = [];
    const ed = new AnnotationEditor(detail(), SCHEMA, {
      debounceMs: 1_000_000,
      retryMs: 5,
      save: (edits, base) => {
        if (full) return Promise.reject(apiError('workspace-unwritable', FULL));
        saved.push(edits);
        bases.push(base);
        return Promise.resolve({ ...detail().summary, revision: base + 1 });
      },
      reload: () => Promise.reject(new Error('reload must not be needed')),
    });
    ed.select('T1');
    ed.handleKey({ key: 'c' });
    await ed.flush();
    expect(ed.saveState).toBe('error');
    expect(ed.saveError).toBe(
      `Your changes are not saved yet: ${FULL} They are kept in this window and saved by themselves once the workspace can be written again (no need to make them again); do not close or reload it until this says “All changes saved”.`,
    );
    expect(ed.entity('T1')?.type).toBe('Chemical');
    expect(ed.canUndo).toBe(true);
    ed.selectRange(at('daily'), at('daily') + 5);
    ed.handleKey({ key: 'c' });
    await new Promise((r) => setTimeout(r, 30));
    expect(ed.saveState).toBe('error');
    expect(saved).toEqual([]);
    full = false;
    await vi.waitFor(() => expect(ed.saveState).toBe('saved'));
    expect(ed.saveError).toBeNull();
    expect(saved.flat().map((e) => e.op)).toEqual(['update-entity', 'add-entity']);
    expect(bases[0]).toBe(detail().summary.revision);
  });

  it('still reloads the saved version when the workspace is damaged (saving again cannot mend it)', async () => {
    let reloads = 0;
    const ed = new AnnotationEditor(detail(), SCHEMA, {
      debounceMs: 1_000_000,
      retryMs: 5,
      save: () => Promise.reject(apiError('workspace-unavailable', '/data/workspace.sqlite is not a valid Benchtop workspace database')),
      reload: () => {
        reloads++;
        return Promise.resolve(detail());
      },
    });
    ed.select('T1');
    ed.handleKey({ key: 'c' });
    await ed.flush();
    expect(reloads).toBe(1);
    expect(ed.saveError).toMatch(/^Your last change was not saved: \/data\/workspace\.sqlite is not a valid/);
  });
});
