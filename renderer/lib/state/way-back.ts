// The editor's way back to the screen that opened it ("Review in the editor" on Evaluate's mistakes
// and on Run's results over project documents): kept in
// the browser history entry of each document it shows, so that Back and Forward, a reload and the
// next or previous document keep it, and its button goes back exactly as the browser's Back.

/** The screens whose documents open in the editor with a way back to them. */
export type BackView = 'evaluate' | 'run';

/** The way back: to `view`, `steps` entries back in the window's history. */
export interface WayBack {
  view: BackView;
  steps: number;
}

const BACK_VIEWS: readonly string[] = ['evaluate', 'run'];

/**
 * The way back a document opened in the editor from `view` offers: from Evaluate or Run, one step back;
 * from the editor itself (the next or previous document), the way the editor had, one step
 * further; from anywhere else (Documents, the sidebar), none.
 */
export function wayBackFrom(view: string, shown: WayBack | null): WayBack | null {
  if (BACK_VIEWS.includes(view)) return { view: view as BackView, steps: 1 };
  if (view === 'annotate' && shown !== null) return { view: shown.view, steps: shown.steps + 1 };
  return null;
}

/** The way back a history entry's state holds (`history.state`); null for none or a malformed one. */
export function wayBackOf(state: unknown): WayBack | null {
  const back = (state as { wayBack?: unknown } | null)?.wayBack as Partial<WayBack> | undefined;
  if (typeof back !== 'object' || back === null) return null;
  const { view, steps } = back;
  if (typeof view !== 'string' || !BACK_VIEWS.includes(view)) return null;
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1) return null;
  return { view, steps };
}

/** Where in its text a document was opened (the mistake "Review in the editor" came from). */
export interface OpenAt {
  start: number;
  end: number;
}

/** The place a history entry's state opens its document at; null for none or a malformed one. */
export function openAtOf(state: unknown): OpenAt | null {
  const at = (state as { at?: unknown } | null)?.at as Partial<OpenAt> | null | undefined;
  if (typeof at !== 'object' || at === null) return null;
  const { start, end } = at;
  const isOffset = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  return isOffset(start) && isOffset(end) && end > start ? { start, end } : null;
}
