// The Models screen's Metrics table in the words and units of Train and Evaluate: a trained
// model's dev_precision / dev_recall / dev_f1 were shown as raw keys with fractions ("dev_f1
// 0.1012", and "0" for none, read as a count) beside "Best dev F1: 10.1 %" on its run. Scores of
// known names get a label and a percentage; other keys (a shipped or imported model's own
// metrics.json) are shown as they are.
import { formatNumber } from '../../lib/format.ts';

const SPLITS: Record<string, string> = { dev: 'held-out documents', test: 'test documents' };
const SCORES: Record<string, string> = { precision: 'Precision', recall: 'Recall', f1: 'F1' };

export interface MetricRow {
  label: string;
  value: string;
}

export function metricRows(metrics: Record<string, number>): MetricRow[] {
  return Object.entries(metrics).map(([key, v]) => {
    const m = /^(dev|test)_(precision|recall|f1)$/u.exec(key);
    if (m) return { label: `${SCORES[m[2]!]} on ${SPLITS[m[1]!]}`, value: `${(v * 100).toFixed(1)} %` };
    if (key === 'steps') return { label: 'Training steps', value: formatNumber(v) };
    // Counts (steps) as integers, other measurements (losses) with four decimals.
    return { label: key, value: Number.isInteger(v) ? formatNumber(v) : v.toFixed(4) };
  });
}

/** Under Metrics, what its scores are, when it shows any (a model's own metrics.json may not). */
export function scoresNote(metrics: Record<string, number>): string | null {
  const splits = new Set(Object.keys(metrics).flatMap((k) => /^(dev|test)_(precision|recall|f1)$/u.exec(k)?.[1] ?? []));
  if (splits.size === 0) return null;
  const where = [...splits].map((s) => SPLITS[s]).join(' and ');
  return (
    `Scored on ${where}, which it did not learn from. Precision: how much of what it marks is ` +
    'right; recall: how much of what is annotated it finds; F1 balances the two. 100 % is perfect.'
  );
}
