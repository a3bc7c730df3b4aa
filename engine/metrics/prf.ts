// Shared metric shapes and arithmetic for NER and RE evaluation: precision/recall/F1 from counts
// (0 when a denominator is 0), per-type reports with micro and unweighted macro averages, and a
// plain-data confusion matrix (rows = gold, columns = predicted).

/** Precision, recall, F1 and the counts they come from. */
export interface PRF {
  precision: number;
  recall: number;
  f1: number;
  tp: number;
  fp: number;
  fn: number;
}

/** Per-type scores; support = number of gold items of the type (tp + fn). */
export interface TypePRF extends PRF {
  support: number;
}

/** Per-type scores plus micro (pooled counts) and macro (unweighted mean over types) averages. */
export interface Report {
  micro: PRF;
  /** Mean of per-type precision, recall and F1; tp/fp/fn are the pooled totals. */
  macro: PRF;
  per_type: Record<string, TypePRF>;
}

/** Square count matrix: counts[i][j] = items with gold labels[i] and prediction labels[j]. */
export interface ConfusionMatrix {
  labels: string[];
  counts: number[][];
}

/** Raw counts for one type. */
export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

const ratio = (num: number, den: number): number => (den === 0 ? 0 : num / den);

/** PRF from counts: p = tp/(tp+fp), r = tp/(tp+fn), f1 = 2pr/(p+r); each 0 when undefined. */
export function prf(tp: number, fp: number, fn: number): PRF {
  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, tp + fn);
  const f1 = ratio(2 * precision * recall, precision + recall);
  return { precision, recall, f1, tp, fp, fn };
}

/** Builds a report from per-type counts (every key becomes a per_type row and enters the macro mean). */
export function buildReport(counts: ReadonlyMap<string, Counts>): Report {
  const names = [...counts.keys()].sort();
  const per_type: Record<string, TypePRF> = {};
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let sumP = 0;
  let sumR = 0;
  let sumF = 0;
  for (const name of names) {
    const c = counts.get(name) ?? { tp: 0, fp: 0, fn: 0 };
    const row = prf(c.tp, c.fp, c.fn);
    per_type[name] = { ...row, support: c.tp + c.fn };
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
    sumP += row.precision;
    sumR += row.recall;
    sumF += row.f1;
  }
  const n = names.length;
  const macro: PRF = { precision: ratio(sumP, n), recall: ratio(sumR, n), f1: ratio(sumF, n), tp, fp, fn };
  return { micro: prf(tp, fp, fn), macro, per_type };
}

/** Counts for `key`, created at zero on first use. */
export function countsFor(map: Map<string, Counts>, key: string): Counts {
  let c = map.get(key);
  if (c === undefined) {
    c = { tp: 0, fp: 0, fn: 0 };
    map.set(key, c);
  }
  return c;
}

/** An all-zero confusion matrix over `labels`, with a label → index lookup. */
export function emptyConfusion(labels: string[]): { matrix: ConfusionMatrix; index: Map<string, number> } {
  const index = new Map(labels.map((l, i) => [l, i] as const));
  return { matrix: { labels, counts: labels.map(() => labels.map(() => 0)) }, index };
}

/** Adds `n` to the cell (gold, pred); both labels must be in the matrix. */
export function bump(
  cm: { matrix: ConfusionMatrix; index: Map<string, number> },
  gold: string,
  pred: string,
  n = 1,
): void {
  const i = cm.index.get(gold);
  const j = cm.index.get(pred);
  const row = i === undefined ? undefined : cm.matrix.counts[i];
  if (row === undefined || j === undefined) throw new Error(`confusion label not found: ${gold} / ${pred}`);
  row[j] = (row[j] ?? 0) + n;
}
