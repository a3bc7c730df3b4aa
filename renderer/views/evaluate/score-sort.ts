// The score table sorted by one of its columns: the rows of the types (or relations) only; the
// averages under them stay where they are. Chosen by the column headers' buttons.
import type { ScoreRow } from '../../../engine/api/contract.ts';
import { rowScores } from '../../lib/format.ts';

export type ScoreColumn = 'name' | 'precision' | 'recall' | 'f1' | 'tp' | 'fp' | 'fn' | 'support';

export interface ScoreSort {
  column: ScoreColumn;
  isDescending: boolean;
}

/**
 * The sort after the header of `column` is pressed: by it, names A to Z and scores and counts
 * highest first; pressed again, the other way round.
 */
export function nextSort(current: ScoreSort | null, column: ScoreColumn): ScoreSort {
  if (current?.column === column) return { column, isDescending: !current.isDescending };
  return { column, isDescending: column !== 'name' };
}

/** What `column` holds for `r`; undefined where the table shows a dash (no value to rank). */
function valueOf(r: ScoreRow, column: Exclude<ScoreColumn, 'name'>): number | undefined {
  const shown = rowScores(r);
  if ((column === 'precision' && shown.precisionNote) || (column === 'recall' && shown.recallNote))
    return undefined;
  const v = r[column];
  return v === undefined || Number.isNaN(v) ? undefined : v;
}

/** `rows` in the order of `sort` (null: as the report gives them); ties, and dashes last, by name. */
export function sortScoreRows(
  rows: readonly ScoreRow[],
  sort: ScoreSort | null,
): readonly ScoreRow[] {
  if (sort === null) return rows;
  const { column } = sort;
  const sign = sort.isDescending ? -1 : 1;
  const byName = (a: ScoreRow, b: ScoreRow): number => a.name.localeCompare(b.name);
  if (column === 'name') return [...rows].sort((a, b) => sign * byName(a, b));
  return [...rows].sort((a, b) => {
    const x = valueOf(a, column);
    const y = valueOf(b, column);
    if (x === undefined || y === undefined)
      return x === y ? byName(a, b) : x === undefined ? 1 : -1;
    return sign * (x - y) || byName(a, b);
  });
}
