// Evaluate's place, found again back from the editor ("Review in the editor", then its "← Back to
// Evaluate" or the browser's Back): the page and the mistakes list scrolled as they were, and the
// keyboard on the mistake that was opened, not on the screen's heading (the screen is made anew,
// so without this a keyboard user started again from the top of a long report).
import { tick } from 'svelte';

/** How far the screen and its list of mistakes were scrolled when last seen. */
export interface Place {
  page: number;
  list: number;
}

const LIST = '[data-testid="error-list"] ul';
const OPENED = '[data-testid="error-item"][aria-pressed="true"]';
/** How long the page may take to grow back to its height (the document viewer loads its text). */
const GROWING_MS = 2000;

/** Keeps `place` up to date while `section` (inside the scrolling `page`) is shown; returns the stop. */
export function trackPlace(section: HTMLElement, page: HTMLElement, place: Place): () => void {
  const onPage = (): void => void (place.page = page.scrollTop);
  // Scroll events do not bubble: the list's are caught on their way down.
  const onList = (e: Event): void => {
    if (e.target instanceof HTMLElement && e.target.matches(LIST)) place.list = e.target.scrollTop;
  };
  page.addEventListener('scroll', onPage, { passive: true });
  section.addEventListener('scroll', onList, { capture: true, passive: true });
  return () => {
    page.removeEventListener('scroll', onPage);
    section.removeEventListener('scroll', onList, { capture: true });
  };
}

/**
 * Scrolls `page` and the list in `section` back to `place` and gives the opened mistake the
 * keyboard, when focus is still where a change of screen leaves it (the heading, or nowhere).
 * The page is scrolled again as it grows back, until it reaches the place or the user scrolls.
 */
export async function findPlace(section: HTMLElement, page: HTMLElement, place: Place): Promise<void> {
  const { page: top, list } = place;
  await tick();
  const listEl = section.querySelector<HTMLElement>(LIST);
  if (listEl) listEl.scrollTop = list;
  page.scrollTop = top;
  const active = document.activeElement;
  const isAtHeading = active === null || active === document.body || active === section.querySelector('h1');
  if (isAtHeading) section.querySelector<HTMLElement>(OPENED)?.focus({ preventScroll: true });
  const isThere = (): boolean => page.scrollTop >= top - 1;
  if (isThere()) return;
  const grows = new ResizeObserver(() => {
    page.scrollTop = top;
    if (isThere()) stop();
  });
  const timer = setTimeout(() => stop(), GROWING_MS);
  const stop = (): void => {
    clearTimeout(timer);
    grows.disconnect();
    for (const type of USER_SCROLLS) page.removeEventListener(type, stop);
  };
  for (const type of USER_SCROLLS) page.addEventListener(type, stop, { passive: true });
  grows.observe(section);
}

const USER_SCROLLS = ['wheel', 'keydown', 'pointerdown', 'touchstart'] as const;

/**
 * What a reload of the window keeps of the screen (the editor opened from it reloaded, then
 * "← Back to Evaluate"): the report comes back from the engine, but the filters and the mistake
 * opened were gone. Kept for this window only (sessionStorage), by the evaluation's job, as
 * indexes and the schema's type names: never a mistake's text.
 */
export interface SavedPlace extends Place {
  jobId: string;
  kind: string;
  type: string;
  /** The opened mistake's index in the report's list; -1 for none. */
  opened: number;
}

const SAVED_KEY = 'benchtop.evaluatePlace';

export function savePlace(saved: SavedPlace | null): void {
  if (saved === null) sessionStorage.removeItem(SAVED_KEY);
  else sessionStorage.setItem(SAVED_KEY, JSON.stringify(saved));
}

/** The place saved before the window was reloaded (once: it is forgotten as it is read). */
export function takeSavedPlace(): SavedPlace | null {
  const text = sessionStorage.getItem(SAVED_KEY);
  sessionStorage.removeItem(SAVED_KEY);
  try {
    const s = JSON.parse(text ?? 'null') as Partial<SavedPlace> | null;
    const isNumber = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
    if (s === null || typeof s.jobId !== 'string' || typeof s.kind !== 'string' || typeof s.type !== 'string') return null;
    if (!isNumber(s.opened) || !isNumber(s.page) || !isNumber(s.list)) return null;
    return s as SavedPlace;
  } catch {
    return null; // not ours, or damaged: nothing to find again
  }
}
