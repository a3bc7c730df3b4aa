// The editor stays smooth on a 100,000-character document with 2,000 annotations (nested and
// overlapping included): while scrolling top to bottom, no main-thread task may exceed 50 ms,
// measured in the page with a PerformanceObserver for long tasks (see the NOTE on retries).
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from './api-client.ts';
import { type App, launchApp, screenshot } from './fixtures.ts';

let app: App;
beforeAll(async () => {
  app = await launchApp();
});
afterAll(async () => {
  await app?.close();
});

interface Sweep {
  longTasks: number[];
  isObserverWorking: boolean;
  frames: number;
  maxBlocks: number;
  height: number;
}

const WORDS = (
  'patient presented with acute chest pain and was treated with aspirin heparin metoprolol ' +
  'history of diabetes hypertension renal failure BRCA1 TP53 mutation carrier cisplatin ' +
  'follow-up showed improvement no further episodes were reported during the admission'
).split(' ');

/** A seeded synthetic document: ~100k chars in paragraphs, 2,000 entities, 300 relations. */
function longDocument(): { text: string; entities: object[]; relations: object[] } {
  let seed = 42;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const words: { start: number; end: number }[] = [];
  let text = '';
  while (text.length < 100_000) {
    const sentenceLength = 8 + rand(14);
    for (let i = 0; i < sentenceLength; i++) {
      const w = WORDS[rand(WORDS.length)]!;
      words.push({ start: text.length, end: text.length + w.length });
      text += w + (i === sentenceLength - 1 ? '. ' : ' ');
    }
    if (rand(6) === 0) text = text.trimEnd() + '\n';
  }
  text = text.slice(0, 100_000);
  const usable = words.filter((w) => w.end <= text.length);
  const types = ['Disease', 'Chemical', 'Gene'];
  const entities: { id: string; start: number; end: number; type: string }[] = [];
  const step = Math.floor(usable.length / 1700);
  for (let i = 0; entities.length < 2000 && i + 2 < usable.length; i += step) {
    const w = usable[i]!;
    entities.push({
      id: `T${entities.length + 1}`,
      start: w.start,
      end: w.end,
      type: types[rand(3)]!,
    });
    if (entities.length % 6 === 0) {
      // nested: a two-word span containing the word; every 12th also overlaps the next word
      const next = usable[i + 1]!;
      entities.push({
        id: `T${entities.length + 1}`,
        start: w.start,
        end: next.end,
        type: types[rand(3)]!,
      });
    }
  }
  const relations = Array.from({ length: 300 }, (_, k) => ({
    id: `R${k + 1}`,
    type: 'associated_with',
    arg1: `T${k * 6 + 1}`,
    arg2: `T${k * 6 + 2}`,
  }));
  return { text, entities, relations };
}

describe('long document performance', () => {
  it('scrolls a 100k-character document with 2,000 annotations without long tasks', async () => {
    const { page, server } = app;
    const doc = longDocument();
    expect(doc.text.length).toBe(100_000);
    expect(doc.entities.length).toBe(2000);
    const file = join(app.tmp, 'long.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'long-note', ...doc })}\n`);
    const [demo] = await apiCall(server, 'projects:list', {});
    const report = await apiCall(server, 'documents:import', {
      projectId: demo!.id,
      path: file,
      containsPhi: false,
    });
    expect(report.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const { items } = await apiCall(server, 'documents:list', {
      projectId: demo!.id,
      search: 'long-note',
    });
    const id = items[0]!.id;

    const opened = Date.now();
    await page.goto(`${server.origin}/#/annotate/${id}`);
    await page.locator('[data-chip]').first().waitFor();
    const openMs = Date.now() - opened;

    // One sweep: top to bottom in 400 px steps (one per frame), then big jumps, then an 80 ms
    // calibration task that the observer must report (proving long tasks are visible here).
    const sweep = (): Promise<Sweep> =>
      page.evaluate(async () => {
        type Entry = { duration: number };
        const g = globalThis as unknown as {
          PerformanceObserver: new (cb: (list: { getEntries(): Entry[] }) => void) => {
            observe(o: object): void;
            disconnect(): void;
          };
          document: {
            querySelector(
              q: string,
            ): { scrollTop: number; scrollHeight: number; clientHeight: number } | null;
            querySelectorAll(q: string): { length: number };
          };
          requestAnimationFrame(cb: () => void): void;
        };
        const longTasks: number[] = [];
        const obs = new g.PerformanceObserver((list) =>
          longTasks.push(...list.getEntries().map((e) => e.duration)),
        );
        obs.observe({ type: 'longtask' });
        const pane = g.document.querySelector('[data-testid="text-pane"]')!;
        const frame = (): Promise<void> => new Promise((r) => g.requestAnimationFrame(() => r()));
        pane.scrollTop = 0;
        await frame();
        let frames = 0;
        let maxBlocks = 0;
        while (pane.scrollTop + pane.clientHeight < pane.scrollHeight - 2 && frames < 2000) {
          pane.scrollTop += 400;
          await frame();
          frames++;
          maxBlocks = Math.max(maxBlocks, g.document.querySelectorAll('[data-block]').length);
        }
        for (const to of [0.5, 0.1, 0.8, 0]) {
          pane.scrollTop = pane.scrollHeight * to;
          await frame();
          await frame();
        }
        await new Promise((r) => setTimeout(r, 300));
        const duringScroll = [...longTasks];
        setTimeout(() => {
          const t = performance.now();
          while (performance.now() - t < 80);
        }, 0);
        await new Promise((r) => setTimeout(r, 300));
        obs.disconnect();
        return {
          longTasks: duringScroll,
          isObserverWorking: longTasks.length > duringScroll.length,
          frames,
          maxBlocks,
          height: pane.scrollHeight,
        };
      });

    // NOTE: the build machines are shared (2 cores, often loaded by other jobs), and a long task
    // is wall-clock time: a descheduled 20 ms task reads as 70 ms. Work the app does itself recurs
    // in every sweep over the same text, while contention does not; so up to five sweeps are
    // made and one must be entirely free of long tasks. Every sweep is logged.
    const sweeps: Sweep[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const s = await sweep();
      sweeps.push(s);
      console.log(
        `long document sweep ${attempt + 1}: opened in ${openMs} ms; ${s.frames} scroll frames over ${Math.round(s.height)} px; ` +
          `at most ${s.maxBlocks} blocks in the DOM; long tasks (ms): ${JSON.stringify(s.longTasks.map(Math.round))}; load average ${loadavg()[0]?.toFixed(1)}`,
      );
      expect(s.isObserverWorking).toBe(true);
      expect(s.frames).toBeGreaterThan(50);
      expect(s.maxBlocks).toBeLessThan(40); // virtualised: only the blocks near the viewport
      if (s.longTasks.length === 0) break;
    }
    await screenshot(page, '10-annotate-long-document');
    expect(sweeps.some((s) => s.longTasks.filter((d) => d > 50).length === 0)).toBe(true);
    expect(app.problems).toEqual([]);
  });
});
