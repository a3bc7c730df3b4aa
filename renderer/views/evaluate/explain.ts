// Evaluate's terms in plain words, for a reader who has never met precision or a confusion
// matrix (a research nurse found the screen technical): what each column of the score table
// counts, with a worked example whose figures are computed as the table computes them, and how
// to read a cell of the confusion matrix, with the report's own type names.
import type { TaskKind } from '../../../engine/api/contract.ts';
import { formatScore } from '../../lib/format.ts';
import type { ScoreColumn } from './score-sort.ts';

export interface Term {
  /** The column it explains (its header is described by it), if any. */
  column?: ScoreColumn;
  term: string;
  text: string;
}

/** The worked example: precision, recall and F1 of `right` of `marked`, with `annotated` in all. */
export function scoreExample(task: TaskKind, right = 6, marked = 8, annotated = 10): string {
  const p = right / marked;
  const r = right / annotated;
  const f1 = (2 * p * r) / (p + r);
  const setting =
    task === 're'
      ? `Say ${annotated} pairs of entities are annotated with a relation, and the model names a relation for ${marked} pairs, ${right} of them the annotated one.`
      : `Say ${annotated} diseases are annotated, and the model marks ${marked} things as diseases, ${right} of them exactly right.`;
  return (
    `${setting} Precision is ${right} of ${marked}, ${formatScore(p)}; recall is ${right} of ${annotated}, ` +
    `${formatScore(r)}; F1 is ${formatScore(f1)}, high only when both are.`
  );
}

/** What the score table's columns, averages and dashes mean. */
export function scoreTerms(task: TaskKind): Term[] {
  const isRe = task === 're';
  const thing = isRe ? 'pairs' : 'entities';
  return [
    {
      column: 'precision',
      term: 'Precision',
      text: `Of what the model marked, how much was right. Low precision: it marks too much.`,
    },
    {
      column: 'recall',
      term: 'Recall',
      text: `Of what is annotated, how much the model found. Low recall: it misses too much.`,
    },
    {
      column: 'f1',
      term: 'F1',
      text: 'One figure that balances precision and recall. 100 % is perfect agreement with the annotations.',
    },
    {
      column: 'tp',
      term: 'Right',
      text: isRe
        ? 'Pairs the model gave the annotated relation (true positives).'
        : 'Entities the model marked with exactly the annotated words and type (true positives).',
    },
    {
      column: 'fp',
      term: 'Extra',
      text: isRe
        ? 'Pairs the model gave a relation that is not annotated for them (false positives).'
        : 'What the model marked that is not annotated, or not with these exact words and type (false positives).',
    },
    {
      column: 'fn',
      term: 'Missed',
      text: isRe
        ? 'Annotated relations the model did not name (false negatives).'
        : 'Annotated entities the model did not find exactly (false negatives).',
    },
    {
      column: 'support',
      term: 'Annotated',
      text: `How many ${isRe ? 'relations' : 'entities'} of the row are annotated in the documents compared.`,
    },
    {
      term: 'Averages',
      text: `The micro average counts all ${thing} together, so a common ${isRe ? 'relation' : 'type'} weighs most; the macro average gives each ${isRe ? 'relation' : 'type'} the same weight, so a rare one done badly pulls it down.`,
    },
    {
      term: 'A dash',
      text: 'The model marked none of that row (no precision), or none is annotated (no recall); either counts as 0 in F1 and the averages.',
    },
  ];
}

/** The line under the relation table: accuracy, and AUROC where the report has it. */
export function relationTerms(hasAuroc: boolean): Term[] {
  return [
    {
      term: 'Accuracy',
      text: 'The share of all pairs, “no relation” included, given the annotated answer. Most pairs have no relation, so it reads high even for a weak model: look at F1 first.',
    },
    ...(hasAuroc
      ? [
          {
            term: 'AUROC',
            text: 'How well the model’s confidence ranks pairs with a relation above pairs without one: 50 % is guessing, 100 % ranks every one right.',
          },
        ]
      : []),
  ];
}

/** Strict and lenient counting of entities, with an example. */
export const STRICT_LENIENT =
  'The table counts strictly: where “type 2 diabetes” is annotated, the model must mark exactly “type 2 diabetes”. ' +
  'Lenient counting, under the table, also accepts “diabetes”: it overlaps the annotation and has the right type.';

/** The id of the definition describing a column's header (none for the name column). */
export const termId = (column: ScoreColumn): string => `score-term-${column}`;

/** A cell of the confusion matrix: its row's label, its column's, and its count. */
export interface Cell {
  gold: string;
  pred: string;
  count: number;
}

/**
 * The cell the confusion matrix's explanation reads as its example ("row Disease, column
 * Chemical"): the biggest mix-up of two labels that are not `none`, else the first such pair;
 * null with fewer than two labels besides `none`.
 */
export function confusionExample(labels: readonly string[], counts: readonly (readonly number[])[], none: string | undefined): Cell | null {
  let best: Cell | null = null;
  labels.forEach((gold, i) =>
    labels.forEach((pred, j) => {
      if (i === j || gold === none || pred === none) return;
      const count = counts[i]?.[j] ?? 0;
      if (best === null || count > best.count) best = { gold, pred, count };
    }),
  );
  return best;
}

/** The example cell in words: "Row Gene, column Disease: 9 times the model called Disease what is annotated Gene." */
export function cellInWords({ gold, pred, count }: Cell, task: TaskKind): string {
  const what =
    task === 're'
      ? `${count} ${count === 1 ? 'pair' : 'pairs'} annotated ${gold} that the model said ${count === 1 ? 'was' : 'were'} ${pred}`
      : `${count} ${count === 1 ? 'time' : 'times'} the model called ${pred} what is annotated ${gold}`;
  return `Row ${gold}, column ${pred}: ${what}.`;
}
