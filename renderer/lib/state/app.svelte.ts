// Navigation and preferences: the current screen (kept in the address hash so a reload returns
// to it), the open project and document, and the colour theme (saved in the data folder's
// settings, cached in localStorage to paint the first frame in the right colours).
import { call } from '../api.ts';
import { type OpenAt, type WayBack, openAtOf, wayBackFrom, wayBackOf } from './way-back.ts';

export type View =
  | 'projects'
  | 'documents'
  | 'annotate'
  | 'train'
  | 'run'
  | 'evaluate'
  | 'distill'
  | 'models'
  | 'settings';
export type Theme = 'system' | 'light' | 'dark';

const VIEWS: readonly View[] = [
  'projects',
  'documents',
  'annotate',
  'train',
  'run',
  'evaluate',
  'distill',
  'models',
  'settings',
];
const PROJECT_KEY = 'benchtop.projectId';
const THEME_KEY = 'benchtop.theme';

function parseHash(hash: string): { view: View; documentId: number | null } {
  const [name, id] = hash.replace(/^#\/?/, '').split('/');
  const view = VIEWS.includes(name as View) ? (name as View) : 'projects';
  const documentId = id !== undefined && /^\d+$/.test(id) ? Number(id) : null;
  return { view: view === 'annotate' && documentId === null ? 'documents' : view, documentId };
}

class AppState {
  view = $state<View>('projects');
  documentId = $state<number | null>(null);
  projectId = $state<number | null>(null);
  theme = $state<Theme>('system');
  /** The screen shown before this one in this window (null: none yet), for a screen to find its place again. */
  previousView = $state<View | null>(null);
  /** The editor's way back to the screen that opened its document (Evaluate); null for none. */
  wayBack = $state.raw<WayBack | null>(null);
  /** Where the editor's document was opened at (Evaluate's mistake), to be selected; null for none. */
  openAt = $state.raw<OpenAt | null>(null);

  constructor() {
    const stored = Number(localStorage.getItem(PROJECT_KEY));
    this.projectId = Number.isInteger(stored) && stored > 0 ? stored : null;
    const theme = localStorage.getItem(THEME_KEY);
    this.theme = theme === 'light' || theme === 'dark' ? theme : 'system';
    this.#applyTheme();
    this.#fromHash();
    this.previousView = null; // the first screen shown
    window.addEventListener('hashchange', () => this.#fromHash());
    // NOTE: browser mode gets a new address (port) each launch, whose localStorage starts empty.
    const cached = this.theme;
    void call('settings:get', {})
      .then((s) => {
        const saved = s.theme as Theme | undefined; // an engine from before themes were saved: none
        // A choice made while this answer was on its way wins over it.
        if (saved !== undefined && saved !== this.theme && this.theme === cached) this.#showTheme(saved);
      })
      .catch(() => {}); // offline or not signed in: the cached choice stays
  }

  /**
   * Shows a screen; `documentId` opens that document in the editor. Opened from Evaluate (or from
   * the editor when it has one), the editor offers a way back there, kept in the history entry;
   * not when `isJump` (the sidebar: a screen chosen, not a document opened from another). `at`:
   * the editor selects that span of the text (the mistake opened), kept in the entry too.
   */
  go(view: View, documentId?: number, { isJump = false, at }: { isJump?: boolean; at?: OpenAt | undefined } = {}): void {
    const hash = view === 'annotate' && documentId !== undefined ? `#/annotate/${documentId}` : `#/${view}`;
    const wayBack = view === 'annotate' && !isJump ? wayBackFrom(this.view, this.wayBack) : null;
    const openAt = view === 'annotate' ? (at ?? null) : null;
    if ((wayBack === null && openAt === null) || hash === location.hash) {
      location.hash = hash;
      return;
    }
    history.pushState({ wayBack, at: openAt }, '', hash);
    this.#fromHash(); // pushState announces no hashchange
  }

  /** Goes back to the screen that opened the editor, as the browser's Back would (its state kept). */
  goBack(): void {
    if (this.wayBack !== null) history.go(-this.wayBack.steps);
  }

  openProject(projectId: number | null): void {
    this.projectId = projectId;
    if (projectId === null) localStorage.removeItem(PROJECT_KEY);
    else localStorage.setItem(PROJECT_KEY, String(projectId));
  }

  setTheme(theme: Theme): void {
    this.#showTheme(theme);
    void call('settings:update', { theme }).catch(() => {}); // kept for this address meanwhile
  }

  #showTheme(theme: Theme): void {
    this.theme = theme;
    localStorage.setItem(THEME_KEY, theme);
    this.#applyTheme();
  }

  #applyTheme(): void {
    if (this.theme === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', this.theme);
  }

  #fromHash(): void {
    const { view, documentId } = parseHash(location.hash);
    this.previousView = this.view === view ? this.previousView : this.view;
    this.wayBack = view === 'annotate' ? wayBackOf(history.state) : null;
    this.openAt = view === 'annotate' ? openAtOf(history.state) : null;
    this.view = view;
    this.documentId = documentId;
  }
}

export const app = new AppState();
