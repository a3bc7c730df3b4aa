import { describe, expect, it } from 'vitest';
import { extentOf, linePath, niceTicks, scale, tickLabel } from './chart.ts';

describe('chart geometry', () => {
  it('pads a flat extent and honours fixed ends', () => {
    expect(extentOf([2, 2])).toEqual({ min: 1.8, max: 2.2 });
    expect(extentOf([])).toEqual({ min: 0, max: 1 });
    expect(extentOf([0.2, 0.4], { min: 0, max: 1 })).toEqual({ min: 0, max: 1 });
    expect(extentOf([NaN, 3, 1])).toEqual({ min: 1, max: 3 });
  });

  it('picks round ticks inside the extent', () => {
    expect(niceTicks({ min: 0, max: 1 })).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(niceTicks({ min: 1, max: 120 }, 5)).toEqual([25, 50, 75, 100]);
    expect(niceTicks({ min: 3, max: 3 })).toEqual([3]);
  });

  it('draws a path with gaps at missing values', () => {
    const sx = scale({ min: 0, max: 10 }, 0, 100);
    const sy = scale({ min: 0, max: 1 }, 100, 0);
    const d = linePath(
      [
        { x: 0, y: 0 },
        { x: 5, y: 0.5 },
        { x: 6, y: NaN },
        { x: 10, y: 1 },
      ],
      sx,
      sy,
    );
    expect(d).toBe('M0.0,100.0L50.0,50.0M100.0,0.0');
    expect(tickLabel(0.123456)).toBe('0.123');
    expect(tickLabel(40)).toBe('40');
  });
});
