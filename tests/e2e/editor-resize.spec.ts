// The annotation editor after the window is resized: its text blocks are laid out again for the
// new width without running over each other, on a real sample note (mtsamples, one long line),
// down to 200 % zoom on a laptop screen (683 × 384 CSS pixels).
// Also: the label chips of short adjacent entities are stacked, never drawn over each other.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, SHARED_DATA, launchApp, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

/** Pairs of consecutive rendered blocks where the first one's bottom runs into the next one. */
function overlaps(): Promise<string[]> {
  return app.page.evaluate(`(() => {
    const blocks = [...document.querySelectorAll('[data-block]')]
      .map((b) => ({ i: Number(b.dataset.block), r: b.getBoundingClientRect() }))
      .sort((a, b) => a.i - b.i);
    const out = [];
    for (let k = 0; k + 1 < blocks.length; k++) {
      const a = blocks[k], b = blocks[k + 1];
      if (b.i === a.i + 1 && a.r.bottom > b.r.top + 1) out.push(a.i + ' ends at ' + Math.round(a.r.bottom) + ', ' + b.i + ' starts at ' + Math.round(b.r.top));
    }
    return out;
  })()`);
}

describe('editor text after a resize', () => {
  it('lays the blocks of a long note out again for each new width, none over another', async () => {
    const { page } = app;
    // The third note of the mtsamples sample (4,422 characters on one line), as a text file.
    const csv = readFileSync(
      join(SHARED_DATA, 'documents', 'mtsamples', 'mtsamples_401rows.csv'),
      'utf8',
    );
    const start = csv.indexOf('HISTORY OF PRESENT ILLNESS: , I have seen ABC today.');
    let end = start;
    while (csv[end] !== '"' || csv[end + 1] === '"') end += csv[end] === '"' ? 2 : 1;
    const note = csv.slice(start, end).replaceAll('""', '"');
    expect(note.length).toBeGreaterThan(4000);
    // With entities and a relation, as annotated by hand (their chips and arc make lines taller).
    const at = (mention: string): string => {
      const i = note.indexOf(mention);
      return `${i} ${i + mention.length}\t${mention}`;
    };
    const ann = [
      `T1\tDisease ${at('high cholesterol')}`,
      `T2\tDisease ${at('asthma')}`,
      `T3\tDisease ${at('sleep apnea')}`,
      `T4\tChemical ${at('medication')}`,
      'R1\ttreats Arg1:T4 Arg2:T2',
    ].join('\n');
    const dir = join(app.tmp, 'consult');
    mkdirSync(dir);
    writeFileSync(join(dir, 'weight-loss-consult.txt'), note);
    writeFileSync(join(dir, 'weight-loss-consult.ann'), `${ann}\n`);
    const [demo] = await apiCall(app.server, 'projects:list', {});
    await apiCall(app.server, 'documents:import', { projectId: demo!.id, path: dir, containsPhi: true });

    await page.getByTestId('nav-documents').click();
    await page.getByRole('link', { name: 'weight-loss-consult' }).click();
    await page.getByTestId('text-pane').waitFor();
    await expect.poll(() => page.locator('[data-block]').count()).toBeGreaterThan(2);
    expect(await overlaps()).toEqual([]);
    for (const width of [1024, 1920, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      // Two frames for the observers, then the layout must hold.
      await page.waitForTimeout(300);
      await screenshot(page, `editor-resize-${width}`);
      expect(await overlaps(), `at ${width} px`).toEqual([]);
    }
    // 200 % zoom on a 1366 × 768 laptop: the navigation moves to the top and the text keeps most
    // of the width (beside the 208 px column it had about 100 px, two words a line), and the
    // header's controls wrap inside the window instead of running off its right edge.
    await page.setViewportSize({ width: 683, height: 384 });
    await page.waitForTimeout(300);
    await screenshot(page, 'editor-resize-683');
    expect(await overlaps(), 'at 683 px').toEqual([]);
    expect((await page.getByTestId('text-pane').boundingBox())!.width).toBeGreaterThan(683 / 2);
    const next = (await page.getByRole('button', { name: 'Next document' }).boundingBox())!;
    expect(next.x + next.width).toBeLessThanOrEqual(683);
    expect(app.problems).toEqual([]);
  });

  it('stacks the label chips of short adjacent entities instead of drawing one over the other', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1366, height: 768 });
    const dir = join(app.tmp, 'abbreviations');
    mkdirSync(dir);
    writeFileSync(join(dir, 'abbreviations.txt'), 'HD PD MS and a long tail of plain words after them.\n');
    const ann = ['T1\tSpecificDisease 0 2\tHD', 'T2\tSpecificDisease 3 5\tPD', 'T3\tDiseaseClass 6 8\tMS'];
    writeFileSync(join(dir, 'abbreviations.ann'), `${ann.join('\n')}\n`);
    const [demo] = await apiCall(app.server, 'projects:list', {});
    await apiCall(app.server, 'documents:import', { projectId: demo!.id, path: dir, containsPhi: true });
    await page.getByTestId('nav-documents').click();
    await page.getByRole('link', { name: 'abbreviations' }).click();
    await page.getByTestId('text-pane').locator('[data-chip]').nth(2).waitFor();
    const overlapping = await page.evaluate<string[]>(`(() => {
      const chips = [...document.querySelectorAll('[data-testid="text-pane"] [data-chip]')].map((c) => ({ t: c.textContent, r: c.getBoundingClientRect() }));
      const out = [];
      for (let i = 0; i < chips.length; i++)
        for (let j = i + 1; j < chips.length; j++) {
          const a = chips[i].r, b = chips[j].r;
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(chips[i].t + ' / ' + chips[j].t);
        }
      return out;
    })()`);
    await screenshot(page, 'editor-adjacent-chips');
    expect(overlapping).toEqual([]);
  });
});
