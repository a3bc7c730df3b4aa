// Presentation of evaluation reports: a fixed-width text table (per-type rows by name, then micro
// and macro averages; precision/recall/f1 with 4 decimals and support) and the compact
// metrics.json shape {micro, macro, per_type} with optional lenient/accuracy/auroc extras.
import type { NerEvaluation } from './ner.ts';
import type { PRF, Report } from './prf.ts';
import type { ReEvaluation } from './re.ts';

/** Precision, recall and F1 only. */
export interface PrfJson {
  precision: number;
  recall: number;
  f1: number;
}

/** The compact averages + per-type shape. */
export interface ReportJson {
  micro: PrfJson;
  macro: PrfJson;
  per_type: Record<string, PrfJson>;
}

/** metrics.json: the (strict) report plus extras when the evaluation has them. */
export interface MetricsJson extends ReportJson {
  lenient?: ReportJson;
  accuracy?: number;
  auroc?: number;
}

const COL = 10;
const num = (x: number): string => x.toFixed(4).padStart(COL);

/** Fixed-width table of a report: per-type rows sorted by name, then micro and macro averages. */
export function formatReport(report: Report, title: string): string {
  const names = Object.keys(report.per_type).sort();
  const support = names.reduce((s, n) => s + (report.per_type[n]?.support ?? 0), 0);
  const width = Math.max('macro avg'.length, ...names.map((n) => n.length));
  const row = (name: string, r: PRF, n: number): string =>
    `${name.padEnd(width)}${num(r.precision)}${num(r.recall)}${num(r.f1)}${String(n).padStart(COL)}`;
  const header = `${''.padEnd(width)}${['precision', 'recall', 'f1', 'support'].map((h) => h.padStart(COL)).join('')}`;
  const lines = [title, header, ''];
  for (const name of names) {
    const r = report.per_type[name];
    if (r) lines.push(row(name, r, r.support));
  }
  if (names.length > 0) lines.push('');
  lines.push(row('micro avg', report.micro, support), row('macro avg', report.macro, support));
  const extra = report as Partial<ReEvaluation>;
  if (typeof extra.accuracy === 'number') lines.push('', `${'accuracy'.padEnd(width)}${num(extra.accuracy)}`);
  if (typeof extra.auroc === 'number')
    lines.push(
      `${'auroc'.padEnd(width)}${Number.isFinite(extra.auroc) ? num(extra.auroc) : `${'n/a'.padStart(COL)}  (the data has one class only)`}`,
    );
  return `${lines.join('\n')}\n`;
}

const pick = (r: PRF): PrfJson => ({ precision: r.precision, recall: r.recall, f1: r.f1 });

/** {micro, macro, per_type} with precision/recall/f1 only, per-type keys sorted. */
function compact(report: Report): ReportJson {
  const per_type: Record<string, PrfJson> = {};
  for (const name of Object.keys(report.per_type).sort()) {
    const r = report.per_type[name];
    if (r) per_type[name] = pick(r);
  }
  return { micro: pick(report.micro), macro: pick(report.macro), per_type };
}

/**
 * metrics.json object: a Report as is; a NER evaluation as its strict report plus "lenient";
 * an RE evaluation plus "accuracy" and, when computed and defined, "auroc".
 */
export function toMetricsJson(report: Report | NerEvaluation | ReEvaluation): MetricsJson {
  if ('strict' in report) return { ...compact(report.strict), lenient: compact(report.lenient) };
  const out: MetricsJson = compact(report);
  if ('accuracy' in report) out.accuracy = report.accuracy;
  // Undefined with one class only: left out (JSON would turn NaN into null), as on the Evaluate screen.
  if ('auroc' in report && report.auroc !== undefined && Number.isFinite(report.auroc)) out.auroc = report.auroc;
  return out;
}
