// Relation-extraction classification metrics (ChemProt/DDI/GAD style): per-class PRF over the
// positive classes only (the negative label is neither scored nor averaged), accuracy over all
// items, a confusion matrix, and rank-based binary AUROC (Mann–Whitney U with average ranks).
import type { ConfusionMatrix, Counts, Report } from './prf.ts';
import { buildReport, bump, countsFor, emptyConfusion } from './prf.ts';

/** Options for `evaluateRe`. */
export interface ReOptions {
  /** The "no relation" label ('false' for ChemProt, '0' for GAD); excluded from micro/macro/per_type. */
  negativeLabel?: string;
  /** Positive-class probability per item, for binary AUROC (requires negativeLabel and ≤ 1 positive class). */
  scores?: readonly number[];
  /** Classes that get a per_type row (and enter the macro mean) even when absent from gold and pred. */
  labels?: readonly string[];
}

/** Result of `evaluateRe`. */
export interface ReEvaluation extends Report {
  /** Fraction of items whose prediction equals gold (negatives included); 0 when empty. */
  accuracy: number;
  /** Rows gold, columns predicted; the negative label first, then the other labels sorted. */
  confusion: ConfusionMatrix;
  /** Binary AUROC when scores were given; NaN when gold has only one class. */
  auroc?: number;
}

/** Average 1-based ranks of `xs` in ascending order (tied values share the mean of their ranks). */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((_, i) => i).sort((a, b) => (xs[a] ?? 0) - (xs[b] ?? 0));
  const ranks = new Array<number>(xs.length).fill(0);
  for (let lo = 0; lo < order.length; ) {
    let hi = lo + 1;
    while (hi < order.length && xs[order[hi] ?? 0] === xs[order[lo] ?? 0]) hi++;
    const rank = (lo + 1 + hi) / 2; // mean of ranks lo+1 … hi
    for (let k = lo; k < hi; k++) ranks[order[k] ?? 0] = rank;
    lo = hi;
  }
  return ranks;
}

/** Area under the ROC curve = P(score of a positive > score of a negative) + ½ P(tie); NaN if a class is empty. */
export function auroc(positive: readonly boolean[], scores: readonly number[]): number {
  if (positive.length !== scores.length) throw new RangeError(`${positive.length} labels, ${scores.length} scores`);
  if (scores.some((s) => !Number.isFinite(s))) throw new RangeError('scores must be finite numbers');
  const ranks = averageRanks(scores);
  let nPos = 0;
  let rankSum = 0;
  positive.forEach((p, i) => {
    if (!p) return;
    nPos++;
    rankSum += ranks[i] ?? 0;
  });
  const nNeg = positive.length - nPos;
  if (nPos === 0 || nNeg === 0) return Number.NaN;
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/**
 * Scores predicted against gold labels (one per candidate pair). A positive prediction for a
 * negative gold is an fp of that class; a negative prediction for a positive gold is an fn.
 */
export function evaluateRe(gold: readonly string[], pred: readonly string[], opts: ReOptions = {}): ReEvaluation {
  if (gold.length !== pred.length) throw new RangeError(`gold has ${gold.length} items, pred ${pred.length}`);
  const neg = opts.negativeLabel;
  const counts = new Map<string, Counts>();
  for (const l of [...(opts.labels ?? []), ...gold, ...pred]) if (l !== neg) countsFor(counts, l);
  const others = [...new Set([...(opts.labels ?? []), ...gold, ...pred])].filter((l) => l !== neg).sort();
  const cm = emptyConfusion(neg === undefined ? others : [neg, ...others]);
  let correct = 0;
  gold.forEach((g, i) => {
    const p = pred[i] ?? '';
    bump(cm, g, p);
    if (g === p) {
      correct++;
      if (g !== neg) countsFor(counts, g).tp++;
      return;
    }
    if (g !== neg) countsFor(counts, g).fn++;
    if (p !== neg) countsFor(counts, p).fp++;
  });
  const out: ReEvaluation = {
    ...buildReport(counts),
    accuracy: gold.length === 0 ? 0 : correct / gold.length,
    confusion: cm.matrix,
  };
  if (opts.scores !== undefined) {
    if (neg === undefined || others.length > 1) {
      throw new RangeError('AUROC needs a binary task: a negativeLabel and at most one other label');
    }
    out.auroc = auroc(gold.map((g) => g !== neg), opts.scores);
  }
  return out;
}
