// Navigation and preferences: the current screen (kept in the address hash so a reload returns
// to it), the open project and document, and the colour theme (saved in the data folder's
// settings, cached in localStorage to paint the first frame in the right colours).
import { call } from '../api.ts';

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

  constructor() {
    const stored = Number(localStorage.getItem(PROJECT_KEY));
    this.projectId = Number.isInteger(stored) && stored > 0 ? stored : null;
    const theme = localStorage.getItem(THEME_KEY);
    this.theme = theme === 'light' || theme === 'dark' ? theme : 'system';
    this.#applyTheme();
    this.#fromHash();
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

  /** Shows a screen; `documentId` opens that document in the editor. */
  go(view: View, documentId?: number): void {
    location.hash =
      view === 'annotate' && documentId !== undefined ? `#/annotate/${documentId}` : `#/${view}`;
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
    this.view = view;
    this.documentId = documentId;
  }
}

export const app = new AppState();
