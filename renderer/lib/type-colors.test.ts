import { describe, expect, it } from 'vitest';
import { unusedTypeColor } from './type-colors.ts';

describe('unusedTypeColor', () => {
  it('offers a colour no existing type has, whatever the case it was written in', () => {
    const used = ['#D6336C', '#2b8a3e', '#1c7ed6'];
    const offered = unusedTypeColor(used);
    expect(used.map((c) => c.toLowerCase())).not.toContain(offered);
    expect(offered).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('offers a colour unlike every type the project has, not only one none has exactly', () => {
    // The biomedical template's six types, and two an import added.
    const used = ['#d6336c', '#2b8a3e', '#1c7ed6', '#0c8599', '#e8590c', '#7048e8', '#f032e6', '#9a6324'];
    const rgb = (c: string): number[] => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
    const distance = (a: string, b: string): number => Math.hypot(...rgb(a).map((v, i) => v - rgb(b)[i]!));
    const offered = unusedTypeColor(used);
    // The next free suggestion, #c2255c, is 29 apart from Disease's #d6336c: the same pink.
    for (const c of used) expect(distance(offered, c)).toBeGreaterThan(50);
  });

  it('offers the same colour again once every suggestion is taken', () => {
    const all: string[] = [];
    for (let i = 0; i < 12; i++) all.push(unusedTypeColor(all));
    expect(new Set(all).size).toBe(12);
    expect(all).toContain(unusedTypeColor(all));
  });
});
