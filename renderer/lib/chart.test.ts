import { describe, expect, it } from 'vitest';
import { extentOf, linePath, niceTicks, scale, seriesSummary, tickLabel, tickLabels } from './chart.ts';

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

  it('keeps ticks whole on an axis of steps', () => {
    // One dev F1 point at step 5: the padded extent is 4.5..5.5.
    expect(niceTicks(extentOf([5]), 5)).toEqual([4.6, 4.8, 5, 5.2, 5.4]);
    expect(niceTicks(extentOf([5]), 5, true)).toEqual([5]);
    expect(niceTicks({ min: 1, max: 6 }, 5, true)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(niceTicks({ min: 0, max: 12 }, 5, true)).toEqual([0, 5, 10]);
    expect(niceTicks({ min: 0, max: 120 }, 5, true)).toEqual([0, 25, 50, 75, 100]);
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
    // A narrow loss range: 3 significant digits printed "1.1" for three different ticks.
    const narrow = niceTicks({ min: 1.0991, max: 1.1042 });
    expect(new Set(narrow.map(tickLabel)).size).toBeLessThan(narrow.length);
    expect(tickLabels(narrow)).toEqual(narrow.map((t) => t.toFixed(3)));
    expect(new Set(tickLabels(narrow)).size).toBe(narrow.length);
    expect(tickLabels([0, 0.25, 0.5, 0.75, 1])).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
    expect(tickLabels([0, 20, 40])).toEqual(['0', '20', '40']);
    expect(tickLabels([0.5, 1, 1.5])).toEqual(['0.5', '1.0', '1.5']);
  });

  it('reads a series out with its count in words: one point, not "1 points"', () => {
    // The dev F1 chart after a run's only evaluation (the Train screen's figure).
    expect(seriesSummary('Dev F1 (held-out documents)', [{ x: 200, y: 0 }], 'Step')).toBe(
      'Dev F1 (held-out documents): 1 point, latest 0 at step 200',
    );
    expect(seriesSummary('Training loss', [{ x: 1, y: 2.31 }, { x: 2, y: 0.1274 }], 'Step')).toBe(
      'Training loss: 2 points, latest 0.127 at step 2',
    );
    expect(seriesSummary('Training loss', [], 'Step')).toBe('Training loss: no points yet');
  });
});
