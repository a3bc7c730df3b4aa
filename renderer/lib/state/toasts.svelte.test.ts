// Notices: only the latest few are shown, the rest counted; each still expires on its own.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_SHOWN, toasts } from './toasts.svelte.ts';

beforeEach(() => {
  vi.useFakeTimers();
  toasts.dismissAll();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('toasts', () => {
  it('shows the latest few of five imports and counts the earlier ones', () => {
    for (let i = 1; i <= 5; i++) toasts.show('success', `Imported ${i} documents.`);
    expect(MAX_SHOWN).toBe(3);
    expect(toasts.shown.map((t) => t.text)).toEqual(['Imported 3 documents.', 'Imported 4 documents.', 'Imported 5 documents.']);
    expect(toasts.hiddenCount).toBe(2);
    toasts.dismiss(toasts.shown[2]!.id);
    expect(toasts.shown.map((t) => t.text)).toEqual(['Imported 2 documents.', 'Imported 3 documents.', 'Imported 4 documents.']);
    expect(toasts.hiddenCount).toBe(1);
    toasts.dismissAll();
    expect([toasts.shown, toasts.hiddenCount]).toEqual([[], 0]);
  });

  it('lets each notice expire on its own, errors later than the rest', () => {
    toasts.show('error', 'Nothing was imported.');
    toasts.show('success', 'Imported 2 documents.');
    vi.advanceTimersByTime(4000);
    expect(toasts.items.map((t) => t.text)).toEqual(['Nothing was imported.']);
    vi.advanceTimersByTime(4000);
    expect(toasts.items).toEqual([]);
  });
});
