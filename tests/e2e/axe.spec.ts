// Every screen checked with axe-core (the WCAG rule engine) in Chromium, in the light and the dark
// theme, with real content on screen: the demo project, ten abstracts of the NCBI PubTator file
// imported (a report and its problems), a document open in the editor (an entity selected, a
// selection, the relation flow), a model trained, run and evaluated, and the four Distill steps.
// Any violation fails, listed by rule, element and what to fix. Also: every control Tab reaches
// shows a focus ring of at least 3:1 in both themes, and entities stay visible in forced colours.
// The Models screen belongs to another suite.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ROOT, SHARED_DATA, launchDemoApp } from './fixtures.ts';

const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const NCBI_DEV = join(SHARED_DATA, 'documents', 'pubtator-ncbi', 'NCBIdevelopset_corpus.txt');
let app: App;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe's violations on the page as it is now, one line each (rule, impact, element, fix). */
async function violations(): Promise<string[]> {
  const { page } = app;
  // Evaluated through the DevTools protocol, so the page's CSP (script-src 'self') allows it.
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE);
  const found = await page.evaluate<Violation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  );
  return found.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`,
    ),
  );
}

/** The violations in the light and in the dark theme, each line prefixed with the theme. */
async function scanBothThemes(): Promise<string[]> {
  const { page } = app;
  const out: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.getByTestId('theme-select').selectOption(theme);
    await expect.poll(() => page.evaluate('document.documentElement.dataset.theme')).toBe(theme);
    out.push(...(await violations()).map((v) => `${theme}: ${v}`));
  }
  await page.getByTestId('theme-select').selectOption('light');
  return out;
}

/**
 * Tabs through the screen from its heading (at most `steps` times) and returns each focused
 * control that shows no focus ring, or one under 3:1 against what is behind it (WCAG 1.4.11).
 */
async function missingFocusRings(steps: number): Promise<string[]> {
  const { page } = app;
  await page.getByTestId('skip-link').focus();
  await page.keyboard.press('Enter');
  // Each control is checked as it takes focus (one call for all the Tabs, not one per Tab).
  await page.evaluate(`(() => {
    const check = () => {
      const el = document.activeElement;
      if (!el || el === document.body) return '';
      const name = el.dataset.testid ?? el.tagName + ' ' + (el.getAttribute('aria-label') ?? el.textContent.trim().slice(0, 30));
      const cs = getComputedStyle(el);
      if (cs.outlineStyle === 'none' || parseFloat(cs.outlineWidth) < 2) return name + ': no focus ring';
      const rgb = (c) => {
        const n = (c.match(/[\\d.]+/g) ?? []).map(Number);
        return c.startsWith('color(') ? [...n.slice(0, 3).map((v) => v * 255), ...n.slice(3)] : n;
      };
      const lum = ([r, g, b]) => {
        const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      // What the ring is drawn on: the nearest opaque background outside the element (or inside
      // it, for a ring drawn inside its box).
      let at = parseFloat(cs.outlineOffset) < 0 ? el : el.parentElement;
      while (at && (rgb(getComputedStyle(at).backgroundColor)[3] ?? 1) === 0) at = at.parentElement;
      const behind = at ? getComputedStyle(at).backgroundColor : getComputedStyle(document.body).backgroundColor;
      const [a, b] = [lum(rgb(cs.outlineColor)), lum(rgb(behind))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      return ratio < 3 ? name + ': focus ring ' + ratio.toFixed(2) + ':1 on ' + behind : '';
    };
    globalThis.__ringProblems = [];
    globalThis.__ringCheck = () => {
      const problem = check();
      if (problem !== '' && !globalThis.__ringProblems.includes(problem)) globalThis.__ringProblems.push(problem);
    };
    document.addEventListener('focusin', globalThis.__ringCheck);
  })()`);
  for (let i = 0; i < steps; i++) await page.keyboard.press('Tab');
  return page.evaluate<string[]>(`(() => {
    document.removeEventListener('focusin', globalThis.__ringCheck);
    return globalThis.__ringProblems;
  })()`);
}

async function open(view: string): Promise<void> {
  await app.page.getByTestId(`nav-${view}`).click();
  await app.page.getByTestId(`${view}-view`).waitFor();
}

beforeAll(async () => {
  ({ app } = await launchDemoApp());
});
afterAll(async () => {
  await app?.close();
});

describe('axe-core finds no violation on any screen, in either theme', () => {
  it('checks the theme switch itself (a dark page is scanned dark)', async () => {
    const { page } = app;
    await page.getByTestId('theme-select').selectOption('dark');
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(20, 23, 28)');
    await page.getByTestId('theme-select').selectOption('light');
  });

  it('shows a focus ring of at least 3:1 on every control Tab reaches, light and dark', async () => {
    const { page } = app;
    for (const theme of ['light', 'dark'] as const) {
      await page.getByTestId('theme-select').selectOption(theme);
      for (const view of ['projects', 'documents', 'train', 'settings']) {
        await open(view);
        expect(await missingFocusRings(30), `${theme} ${view}`).toEqual([]);
      }
      await open('documents');
      await page.getByTestId('document-row').first().getByRole('link').click();
      await page.getByTestId('text-pane').waitFor();
      expect(await missingFocusRings(12), `${theme} annotate`).toEqual([]);
    }
    await page.getByTestId('theme-select').selectOption('light');
  });

  it('underlines entities in forced colours (Windows high contrast), where fills are dropped', async () => {
    const { page } = app;
    await open('documents');
    await page.getByTestId('document-row').first().getByRole('link').click();
    await page.getByTestId('text-pane').locator('.seg').first().waitFor();
    const underline = (): Promise<string> =>
      page.evaluate<string>(
        `getComputedStyle(document.querySelector('[data-testid="text-pane"] .seg')).textDecorationLine`,
      );
    expect(await underline()).toBe('none');
    await page.emulateMedia({ forcedColors: 'active' });
    try {
      await expect.poll(underline).toBe('underline');
    } finally {
      await page.emulateMedia({ forcedColors: 'none' });
    }
  });

  it('Train while running and finished, Run with results and a document, Evaluate with a mistake open', async () => {
    const { page } = app;
    await open('train');
    await page.getByTestId('runs-empty').waitFor();
    expect(await scanBothThemes()).toEqual([]);
    await page.getByTestId('train-base').selectOption('preset:small-2L-128');
    await page.getByText('Advanced settings').click();
    await page.getByTestId('train-batch').fill('2');
    await page.getByTestId('train-max-steps').fill('10');
    await page.getByTestId('start-training').click();
    await page.getByTestId('train-progress').waitFor({ timeout: 60_000 });
    expect(await violations()).toEqual([]); // one theme: the run may end within a second scan
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 150_000 })
      .toBe('Finished');
    expect(await scanBothThemes()).toEqual([]);

    await open('run');
    await page.getByTestId('start-run').click();
    await page.getByTestId('run-results').waitFor({ timeout: 120_000 });
    await page.getByTestId('result-row').first().click();
    await page.getByTestId('document-viewer').getByTestId('viewer-title').waitFor();
    // The viewer spells out each entity's type for a screen reader, just before its mention.
    const spoken = await page.getByTestId('document-viewer').locator('.seg .visually-hidden').allTextContents();
    expect(spoken.length).toBeGreaterThan(0);
    for (const t of spoken) expect(t).toMatch(/^\((Chemical|Disease|Gene)\) $/);
    await page.getByTestId('open-run-export').click();
    expect(await scanBothThemes()).toEqual([]);

    await open('evaluate');
    await page.getByTestId('start-evaluate').click();
    await page.getByTestId('score-table').waitFor({ timeout: 120_000 });
    await page.getByTestId('error-item').first().click();
    await page.getByTestId('document-viewer').getByTestId('viewer-title').waitFor();
    expect(await scanBothThemes()).toEqual([]);
  });

  it('Distill, each of its four steps', async () => {
    const { page } = app;
    await open('distill');
    await page.getByTestId('distill-teacher').first().waitFor();
    expect(await scanBothThemes()).toEqual([]);
    for (const step of ['student-model', 'transfer-general', 'distill-steps']) {
      await page.getByTestId('distill-next').click();
      await page.getByTestId(step).first().waitFor();
      expect(await scanBothThemes()).toEqual([]);
      if (step === 'student-model') {
        // The other way to start the student: a new model of a chosen size.
        await page.getByTestId('student-preset').check();
        await page.getByTestId('student-size').waitFor();
        expect(await scanBothThemes()).toEqual([]);
      }
    }
  });
  it('Projects, Settings, and Documents with an import report and its problems', async () => {
    const { page } = app;
    await open('projects');
    expect(await scanBothThemes()).toEqual([]);
    await open('settings');
    await page.getByTestId('device-list').waitFor();
    expect(await scanBothThemes()).toEqual([]);

    await open('documents');
    await page.getByTestId('open-import').click();
    // The first 10 of the file's 100 abstracts: a shorter list scans faster, and shows the same.
    const ncbi = join(mkdtempSync(join(tmpdir(), 'benchtop-axe-')), 'ncbi-dev-10.txt');
    writeFileSync(ncbi, `${readFileSync(NCBI_DEV, 'utf8').split(/\n\s*\n/).slice(0, 10).join('\n\n')}\n`);
    await page.getByTestId('import-path').fill(ncbi);
    await page.getByTestId('import-phi-no').check();
    await page.getByTestId('start-import').click();
    await page.getByTestId('import-report').waitFor({ timeout: 60_000 });
    expect(await scanBothThemes()).toEqual([]);
    // A folder with a file Benchtop cannot read: the report lists the problem.
    const bad = mkdtempSync(join(tmpdir(), 'benchtop-axe-'));
    writeFileSync(join(bad, 'notes.ann'), 'T1\tDisease 0 5\tfever\n');
    await page.getByTestId('import-path').fill(bad);
    await page.getByTestId('start-import').click();
    await page.getByTestId('issue-list').waitFor({ timeout: 60_000 });
    expect(await scanBothThemes()).toEqual([]);
    await page.getByTestId('document-row').first().waitFor();
    expect(await scanBothThemes()).toEqual([]);
  });

  it('Annotate: a selected entity with relations, a pending selection, the relation flow', async () => {
    const { page } = app;
    await open('documents');
    await page.getByTestId('document-search').fill('discharge-001');
    await page.getByTestId('document-row').filter({ hasText: 'discharge-001' }).getByRole('link').click();
    await page.getByTestId('text-pane').waitFor();
    await page.getByTestId('save-state').waitFor();
    await page.getByText('Keyboard', { exact: true }).click();
    expect(await scanBothThemes()).toEqual([]);
    await page.getByTestId('text-pane').focus();
    await page.keyboard.press('ArrowRight');
    await page.getByTestId('entity-info').waitFor();
    expect(await scanBothThemes()).toEqual([]);
    await page.keyboard.press('r');
    await page.getByTestId('relation-flow').waitFor();
    expect(await scanBothThemes()).toEqual([]);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Shift+ArrowRight');
    await page.getByTestId('pending-info').waitFor();
    expect(await scanBothThemes()).toEqual([]);
    await page.keyboard.press('Escape');
  });

});
