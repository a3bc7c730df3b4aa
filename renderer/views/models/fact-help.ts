// The Models screen's facts in plain words, for a reader who is not a machine-learning
// specialist: "Parameters 4.4 M", "BertForTokenClassification" and "O, B-Disease, I-Disease"
// said nothing to a research nurse. Each explanation uses the model's own figures and labels.
import { entityTypesOf } from './model-purpose.ts';

/** A parameter count in words: "4.4 million", "110 million", "850 thousand", "1.3 billion". */
export function parametersInWords(n: number): string {
  const scaled = (v: number): string => (v >= 100 ? v.toFixed(0) : String(Number(v.toFixed(1))));
  if (n >= 1e9) return `${scaled(n / 1e9)} billion`;
  if (n >= 1e6) return `${scaled(n / 1e6)} million`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} thousand`;
  return String(n);
}

/** What the numbers the model learned are, with its own count. */
export function parametersHelp(n: number): string {
  return (
    `The numbers the model tuned while it learned: ${parametersInWords(n)} here. ` +
    'A model with more can learn more, but is slower to train and to run.'
  );
}

/** What a model's labels are, or null when it has none (a starting point that finds nothing). */
export function labelsHelp(task: string, labels: readonly string[]): string | null {
  if (task === 'sequence-classification' && labels.length > 0)
    return 'The relations it can tell apart between two entities of a sentence.';
  const [type] = task === 'token-classification' ? entityTypesOf(labels) : [];
  if (type === undefined) return null;
  if (!labels.some((l) => /^[BI]-/u.test(l)))
    return `The tags it puts on each word: an entity type such as ${type}, or O for a word outside any entity.`;
  // BIOES / BILOU: a tag for an entity's last word, and one for an entity of one word.
  const prefix = (re: RegExp): string | undefined => labels.find((l) => re.test(l))?.slice(0, 2);
  const last = prefix(/^[EL]-/u);
  const single = prefix(/^[SU]-/u);
  const more = [last && `${last} its last word`, single && `${single} an entity of one word`].filter(Boolean);
  return (
    `The tags it puts on each word: B-${type} marks the first word of each ${type} entity, I-${type} ` +
    `a word inside it${more.map((m) => `, ${m}`).join('')}, and O a word outside any entity.` +
    (last === undefined ? ' “Type 2 diabetes” as a Disease is tagged B-Disease, I-Disease, I-Disease.' : '')
  );
}

const JOB: Record<string, string> = {
  'token-classification': 'it tags each word',
  'sequence-classification': 'it sorts each pair of entities into a relation',
  'masked-lm': 'it guesses hidden words, a starting point to train from',
};

/** What the Architecture line ("BertForTokenClassification · token-classification") says. */
export function architectureHelp(task: string): string {
  const job = JOB[task];
  return `The design of the network it is built on, and its kind of job${job ? `: ${task} means ${job}` : ''}.`;
}
