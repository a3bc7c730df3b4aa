import { describe, expect, it } from 'vitest';
import { unusedTypeColor } from './type-colors.ts';

describe('unusedTypeColor', () => {
  it('offers a colour no existing type has, whatever the case it was written in', () => {
    const used = ['#D6336C', '#2b8a3e', '#1c7ed6'];
    const offered = unusedTypeColor(used);
    expect(used.map((c) => c.toLowerCase())).not.toContain(offered);
    expect(offered).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('offers the same colour again once every suggestion is taken', () => {
    const all: string[] = [];
    for (let i = 0; i < 12; i++) all.push(unusedTypeColor(all));
    expect(new Set(all).size).toBe(12);
    expect(all).toContain(unusedTypeColor(all));
  });
});
