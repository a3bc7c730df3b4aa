import { describe, expect, it } from 'vitest';
import { startJob } from './jobs.ts';

const JOB = new URL('../../tests/fixtures/train-steps-job.ts', import.meta.url);

describe('worker-thread jobs', () => {
  it('trains off the event loop, is seeded-reproducible, and reports progress', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const events: unknown[] = [];
    const a = await startJob<{ losses: number[] }>(JOB, { steps: 6, seed: 3 }, (e) => events.push(e)).result;
    clearInterval(timer);
    expect(a.losses).toHaveLength(6);
    expect(events).toHaveLength(6);
    // The main thread kept running timers while the worker trained.
    expect(ticks).toBeGreaterThan(5);
    expect(a.losses[5]).toBeLessThan(a.losses[0] as number);
    const b = await startJob<{ losses: number[] }>(JOB, { steps: 6, seed: 3 }).result;
    expect(b.losses).toEqual(a.losses);
    const c = await startJob<{ losses: number[] }>(JOB, { steps: 6, seed: 4 }).result;
    expect(c.losses).not.toEqual(a.losses);
  });

  it('cancels between steps', async () => {
    let seen = 0;
    const job = startJob<{ losses: number[]; cancelled: boolean }>(JOB, { steps: 500, seed: 1 }, () => {
      seen++;
      if (seen === 2) job.cancel();
    });
    const r = await job.result;
    expect(r.cancelled).toBe(true);
    expect(r.losses.length).toBeGreaterThanOrEqual(2);
    expect(r.losses.length).toBeLessThan(10);
  });
});
