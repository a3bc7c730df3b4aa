// Display helpers: numbers, sizes, dates and names of statuses, in plain words.
import type { DocumentStatus, PhiStatus, RunInfo, RunStatus } from '../../engine/api/contract.ts';

const NUMBER = new Intl.NumberFormat(undefined);

export function formatNumber(n: number): string {
  return NUMBER.format(n);
}

/** The length of `text` in Unicode code points, as the engine (SQLite's length()) counts it. */
export function codePointCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/**
 * A CamelCase class name in the words a line may break between ("BertFor", "Token",
 * "Classification"): the template puts a <wbr> between them, so a narrow table wraps it.
 */
export function camelCaseParts(name: string): string[] {
  return name.split(/(?<=[a-z0-9])(?=[A-Z])/).reduce<string[]>((parts, word) => {
    // Short words stay joined ("Bert" + "For", "Masked" + "LM"): no line holds only "For".
    const last = parts.at(-1);
    if (last !== undefined && (last.length <= 4 || word.length <= 2)) parts[parts.length - 1] = last + word;
    else parts.push(word);
    return parts;
  }, []);
}

export function formatParameters(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} K`;
  return String(n);
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const STATUS_LABEL: Record<DocumentStatus, string> = {
  new: 'New',
  'in-progress': 'In progress',
  annotated: 'Annotated',
  reviewed: 'Reviewed',
};

export const PHI_LABEL: Record<PhiStatus, { text: string; tone: 'ok' | 'warn' | 'bad' }> = {
  'no-phi': { text: 'No patient data', tone: 'ok' },
  unknown: { text: 'PHI unknown', tone: 'warn' },
  'distilled-from-phi-teacher': { text: 'Learned from a PHI model', tone: 'bad' },
  'trained-on-phi': { text: 'Trained on patient data', tone: 'bad' },
};

/** What a PHI status means, in one sentence. */
export const PHI_STATEMENT: Record<PhiStatus, string> = {
  'no-phi': 'No patient data in its training data.',
  unknown: 'Nobody recorded whether its training data held patient data.',
  'distilled-from-phi-teacher': 'No PHI in training data; distilled from a PHI-trained teacher.',
  'trained-on-phi': 'Patient data fed its training: keep it where that data may be.',
};

export const RUN_STATUS_LABEL: Record<
  RunStatus,
  { text: string; tone: 'ok' | 'warn' | 'bad' | 'info' }
> = {
  queued: { text: 'Waiting', tone: 'info' },
  running: { text: 'Training', tone: 'info' },
  completed: { text: 'Finished', tone: 'ok' },
  failed: { text: 'Failed', tone: 'bad' },
  cancelled: { text: 'Stopped', tone: 'warn' },
  interrupted: { text: 'Interrupted', tone: 'warn' },
};

/** A duration in plain words: "45 s", "3 min", "1 h 20 min". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A score in [0, 1] as a percentage with one decimal ("83.4 %"); NaN as "–". */
export function formatScore(x: number | undefined): string {
  return x === undefined || Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)} %`;
}

/**
 * A score row's precision and recall as shown, with a dash where the count behind it is zero: the
 * model marked none of the type (precision) or none is annotated (recall). The report reckons
 * those as 0, as seqeval does (and so do F1 and the macro average), but "0.0 %" would read as
 * "all wrong". Rows without counts (relation reports) show their scores.
 */
export function rowScores(r: { precision: number; recall: number; tp?: number; fp?: number; fn?: number }): {
  precision: string;
  recall: string;
  precisionNote?: string;
  recallNote?: string;
} {
  const noMarks = r.tp === 0 && r.fp === 0;
  const noneAnnotated = r.tp === 0 && r.fn === 0;
  return {
    precision: noMarks ? '–' : formatScore(r.precision),
    recall: noneAnnotated ? '–' : formatScore(r.recall),
    ...(noMarks && { precisionNote: 'The model marked none of these, so there is no precision (counted as 0 in F1 and the average).' }),
    ...(noneAnnotated && { recallNote: 'None of these is annotated, so there is no recall (counted as 0 in F1 and the average).' }),
  };
}

/**
 * The sentence under a completed run: how many steps it trained and, when that is fewer than
 * planned, why (from the run's recorded stop reason; runs from older versions have none).
 */
export function runOutcome(o: {
  steps: number;
  totalSteps: number | null;
  stopReason: RunInfo['stopReason'];
  bestF1: number | undefined;
}): string {
  const planned = o.totalSteps !== null && o.steps < o.totalSteps;
  const of = planned ? ` of the ${formatNumber(o.totalSteps ?? 0)} planned` : '';
  let why = '';
  if (o.stopReason === 'early-stopped') {
    why = planned
      ? ': it stopped early because the dev F1 stopped improving'
      : '; the dev F1 had stopped improving by the end';
  } else if (o.stopReason === 'time-limit') why = ': it reached its time limit';
  else if (o.stopReason === 'max-steps') why = ', the step limit you set';
  else if (o.stopReason === undefined && planned) why = ': it stopped before the end';
  const best = o.bestF1 !== undefined ? ` Best dev F1: ${formatScore(o.bestF1)}.` : '';
  return `Trained for ${formatNumber(o.steps)} steps${of}${why}.${best}`;
}

/** A dataset's documents that training and evaluation use: "4,560 annotated or reviewed". */
export function finishedLabel(n: number): string {
  return `${formatNumber(n)} annotated or reviewed`;
}

/** "1 document", "2,400 documents": a count with its noun (regular plurals and "entity"). */
export function countOf(n: number, noun: string): string {
  const plural = n === 1 ? noun : noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`;
  return `${formatNumber(n)} ${plural}`;
}

/** An import's outcome in one sentence ("Read 1 file: added 2 documents with …; 1 duplicate left out."). */
export function importSummary(r: {
  filesRead: number;
  documentsAdded: number;
  documentsSkipped: number;
  entitiesAdded: number;
  relationsAdded: number;
}): string {
  // An empty folder (or one of hidden files only) read "Read 0 files: added 0 documents with …".
  if (r.filesRead === 0) return 'Nothing was imported: the folder holds no files (hidden files and folders are left out).';
  const skipped = r.documentsSkipped > 0 ? `; ${countOf(r.documentsSkipped, 'duplicate')} left out` : '';
  return `Read ${countOf(r.filesRead, 'file')}: added ${countOf(r.documentsAdded, 'document')} with ${countOf(r.entitiesAdded, 'entity')} and ${countOf(r.relationsAdded, 'relation')}${skipped}.`;
}

/** The heading of a list of file problems ("10,000 problems found (9,990 errors, 10 warnings)"). */
export function issuesSummary(issues: readonly { severity: string }[]): string {
  const errors = issues.filter((i) => i.severity === 'error').length;
  return `${countOf(issues.length, 'problem')} found (${countOf(errors, 'error')}, ${countOf(issues.length - errors, 'warning')})`;
}

/**
 * A file-less issue (what an export had to leave out: "2 entity scores dropped") as a sentence:
 * "2 entity scores were dropped."
 */
export function issueSentence(message: string): string {
  const t = message.trim();
  const m = /\b(had|were|was)\b/u.test(t) ? t : t.replace(/ dropped\b/u, ' were dropped');
  return `${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/u.test(m) ? '' : '.'}`;
}

/** An export's outcome in one sentence ("Exported 1,007 documents to 1 file."). */
export function exportSummary(r: { documents: number; written: readonly string[] }): string {
  return `Exported ${countOf(r.documents, 'document')} to ${countOf(r.written.length, 'file')}.`;
}

/**
 * A model's name for a selector: models that share a name (two runs on the same day) get their
 * creation time, then a short id, so the choices can be told apart.
 */
export function modelLabel(m: { id: string; name: string; createdAt: string }, all: readonly { id: string; name: string; createdAt: string }[]): string {
  const twins = all.filter((o) => o.name === m.name && o.id !== m.id);
  if (twins.length === 0) return m.name;
  const when = formatDate(m.createdAt);
  const sameTime = twins.some((o) => formatDate(o.createdAt) === when);
  return `${m.name} · ${when}${sameTime ? ` · ${m.id.slice(0, 6)}` : ''}`;
}

/** The engine's limit on a project name (engine/api/validate.ts), in UTF-16 units as it counts. */
export const MAX_PROJECT_NAME = 80;

/**
 * Why a typed project name cannot be saved, or null. A longer name used to be cut at 80
 * characters by the field itself, so a pasted name lost its end without a word.
 */
export function projectNameProblem(name: string): string | null {
  const n = name.trim();
  if (n === '') return 'Give the project a name.';
  if (n.length > MAX_PROJECT_NAME)
    return `A project name can have at most ${MAX_PROJECT_NAME} characters; this one has ${n.length}. Shorten it.`;
  return null;
}
