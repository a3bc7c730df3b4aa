// E2E fixtures: a fresh data folder and server per suite, Debian Chromium through
// playwright-core, screenshots under test-results/screenshots, and small page helpers.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { type RunningServer, startServer } from '../../engine/serve/server.ts';
import { apiCall } from './api-client.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const SHARED_DATA = resolve(ROOT, '../shared/data');
export const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');
const CHROMIUM = process.env['BENCHTOP_CHROMIUM'] ?? '/usr/bin/chromium';

export interface App {
  server: RunningServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  dataDir: string;
  tmp: string;
  /** Collected console errors and CSP violations (must stay empty). */
  problems: string[];
  close(): Promise<void>;
}

/** Starts a server on a fresh data folder and opens the printed URL in Chromium. */
export async function launchApp(): Promise<App> {
  if (!existsSync(join(ROOT, 'out', 'renderer', 'index.html'))) {
    throw new Error('The renderer is not built: run "npm run build:web" (npm run e2e does it).');
  }
  const tmp = mkdtempSync(join(tmpdir(), 'benchtop-e2e-'));
  const dataDir = join(tmp, 'data');
  const server = await startServer({ dataDir, port: 0 });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  // Any request that leaves our origin is a bug (the app is offline).
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(server.origin) || url.startsWith('data:')) return route.continue();
    problems.push(`external request: ${url}`);
    return route.abort();
  });
  await page.goto(server.url);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    server,
    browser,
    context,
    page,
    dataDir,
    tmp,
    problems,
    async close() {
      await browser.close();
      await server.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot named `name`.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/**
 * launchApp on the first-launch demo project, with the shared vocabulary that random-weight
 * presets need (the shipped one is absent in a development checkout); close() restores it.
 */
export async function launchDemoApp(): Promise<{ app: App; projectId: number }> {
  const saved = process.env['BENCHTOP_VOCAB'];
  const restore = (): void => {
    if (saved === undefined) delete process.env['BENCHTOP_VOCAB'];
    else process.env['BENCHTOP_VOCAB'] = saved;
  };
  process.env['BENCHTOP_VOCAB'] = join(SHARED_DATA, 'vocab', 'bert-base-uncased-vocab.txt');
  try {
    const app = await launchApp();
    const close = app.close.bind(app);
    app.close = async () => {
      await close();
      restore();
    };
    const [demo] = await apiCall(app.server, 'projects:list', {});
    await app.page.getByTestId('current-project').getByText('Demo').waitFor();
    return { app, projectId: demo!.id };
  } catch (err) {
    restore();
    throw err;
  }
}

/**
 * Reloads the page on `hash` with `projectId` as the open project. It first waits for the app
 * to open its first project: that answer, arriving after the choice was stored, would put the
 * first project back (a slow machine showed the wrong project's documents).
 */
export async function reloadOnProject(app: App, projectId: number, hash: string): Promise<void> {
  const { page } = app;
  await page.waitForFunction(`localStorage.getItem('benchtop.projectId') !== null`);
  await page.evaluate(`localStorage.setItem('benchtop.projectId', '${projectId}')`);
  await page.goto(`${app.server.url}${hash}`);
  await page.reload();
  expect(await page.evaluate(`localStorage.getItem('benchtop.projectId')`)).toBe(String(projectId));
}

/**
 * A new biomedical project holding one real transcribed note (mtsamples' first row) imported as a
 * plain-text file; the note's document id.
 */
export async function importMtsamplesNote(app: App): Promise<number> {
  const { id: projectId } = await apiCall(app.server, 'projects:create', { name: 'Notes', template: 'biomedical' });
  const csv = readFileSync(join(SHARED_DATA, 'documents', 'mtsamples', 'mtsamples_401rows.csv'), 'utf8');
  const file = join(app.tmp, 'allergy-note.txt');
  writeFileSync(file, /"SUBJECTIVE:[^"]*"/.exec(csv)![0].slice(1, -1));
  await apiCall(app.server, 'documents:import', { projectId, path: file, containsPhi: false, format: 'text' });
  return (await apiCall(app.server, 'documents:list', { projectId })).items[0]!.id;
}

/** Selects document text [start, end) in the editor as a mouse user would, then releases. */
export async function selectText(page: Page, start: number, end: number): Promise<void> {
  await page.evaluate(
    ([s, e]) => {
      type El = {
        dataset: Record<string, string | undefined>;
        firstChild: unknown;
        lastChild: unknown;
        dispatchEvent(ev: unknown): boolean;
      };
      const g = globalThis as unknown as {
        document: {
          querySelectorAll(q: string): Iterable<El>;
          createRange(): {
            setStart(n: unknown, o: number): void;
            setEnd(n: unknown, o: number): void;
          };
        };
        getSelection(): { removeAllRanges(): void; addRange(r: unknown): void };
        MouseEvent: new (type: string, init: object) => unknown;
      };
      const segs = [...g.document.querySelectorAll('[data-o]')];
      const find = (off: number): { node: unknown; at: number; seg: El } => {
        const seg = segs.filter((x) => Number(x.dataset['o']) <= off).at(-1)!;
        return { node: seg.lastChild, at: off - Number(seg.dataset['o']), seg };
      };
      const a = find(s!);
      const b = find(e!);
      const range = g.document.createRange();
      range.setStart(a.node, a.at);
      range.setEnd(b.node, b.at);
      const sel = g.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      b.seg.dispatchEvent(new g.MouseEvent('mouseup', { bubbles: true, button: 0 }));
    },
    [start, end],
  );
}

/** Starts recording the focused element every few milliseconds (see focusLog). */
export async function recordFocus(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    clearInterval(globalThis.__focusTimer);
    globalThis.__focusLog = [];
    globalThis.__focusTimer = setInterval(() => {
      const a = document.activeElement;
      const name = !a || a === document.body ? 'BODY' : (a.dataset?.testid ?? a.tagName);
      if (globalThis.__focusLog.at(-1) !== name) globalThis.__focusLog.push(name);
    }, 5);
  })()`);
}

/** The focused elements recorded since recordFocus, in order, repeats collapsed. */
export function focusLog(page: Page): Promise<string[]> {
  return page.evaluate(`(() => { clearInterval(globalThis.__focusTimer); return globalThis.__focusLog; })()`);
}

/** Trains a tiny random-start model (small-2L-128, 10 steps of batch 2) on the Train screen. */
export async function trainTinyModel(page: Page): Promise<void> {
  await page.getByTestId('nav-train').click();
  await page.getByTestId('train-base').selectOption('preset:small-2L-128');
  await page.getByText('Advanced settings').click();
  await page.getByTestId('train-batch').fill('2');
  await page.getByTestId('train-max-steps').fill('10');
  await page.getByTestId('start-training').click();
  await expect
    .poll(() => page.getByTestId('run-status').textContent(), { timeout: 150_000 })
    .toBe('Finished');
}

/**
 * axe's violations inside the element `selector` (the model detail by default), in the light and
 * in the dark theme, one line each prefixed with the theme; the theme is set back to the system's.
 */
export async function axeViolationsBothThemes(page: Page, selector = '[data-testid="model-detail"]'): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the page's CSP (script-src 'self') allows it.
  if ((await page.evaluate('typeof window.axe')) !== 'object')
    await page.evaluate(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.getByTestId('theme-select').selectOption(theme);
    await expect.poll(() => page.evaluate('document.documentElement.dataset.theme')).toBe(theme);
    const violations = await page.evaluate<{ id: string; help: string; nodes: { target: string[] }[] }[]>(
      `axe.run(document.querySelector(${JSON.stringify(selector)}), { resultTypes: ['violations'] }).then((r) => r.violations)`,
    );
    found.push(...violations.flatMap((v) => v.nodes.map((n) => `${theme}: ${v.id}: ${v.help} at ${n.target.join(' ')}`)));
  }
  await page.getByTestId('theme-select').selectOption('system');
  return found;
}
