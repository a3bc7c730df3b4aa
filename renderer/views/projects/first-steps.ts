// "Getting started" on Projects: the steps from an empty project to a model in use, each
// marked done from what the project already holds, so a first-time user sees what comes next.
import type { View } from '../../lib/state/app.svelte.ts';

export interface ProjectProgress {
  entityTypes: number;
  documents: number;
  /** Documents marked Annotated or Reviewed (the ones training uses). */
  finished: number;
  /** Training runs of the project, finished or not. */
  runs: number;
}

export interface FirstStep {
  title: string;
  detail: string;
  isDone: boolean;
  /** The screen the step's button opens; null where the step is on this screen. */
  view: View | null;
  action: string;
}

/** Fewer finished documents than this and the first model learns next to nothing. */
export const FEW_DOCUMENTS = 20;

export function firstSteps(p: ProjectProgress): FirstStep[] {
  return [
    {
      title: 'Choose what to mark',
      detail:
        p.entityTypes === 0
          ? 'Add the kinds of thing you want found in the text (entity types), e.g. “Medication”, “Symptom”, “Procedure”, in the label schema below.'
          : `${p.entityTypes} entity type${p.entityTypes === 1 ? '' : 's'} in the label schema below; add or rename them there.`,
      isDone: p.entityTypes > 0,
      view: null,
      action: 'Edit the label schema',
    },
    {
      title: 'Bring in your notes',
      detail:
        p.documents === 0
          ? 'Import a folder of text files, or a CSV with one note per row. They are copied into Benchtop and stay on this computer.'
          : `${p.documents} document${p.documents === 1 ? '' : 's'} imported.`,
      isDone: p.documents > 0,
      view: 'documents',
      action: 'Import documents',
    },
    {
      title: 'Mark examples',
      detail:
        p.finished === 0
          ? 'Open a document, select words and press a type’s key, then mark the document Annotated. Only documents marked Annotated or Reviewed teach the model.'
          : `${p.finished} document${p.finished === 1 ? '' : 's'} marked Annotated or Reviewed${
              p.finished < FEW_DOCUMENTS ? `: ${FEW_DOCUMENTS} or more give a first model something to learn from` : ''
            }.`,
      isDone: p.finished >= FEW_DOCUMENTS,
      view: 'annotate',
      action: 'Annotate',
    },
    {
      title: 'Train a model, check it, use it',
      detail:
        p.runs === 0
          ? 'Train with the defaults; Evaluate then shows how often it finds what you marked, and Run finds the same things in new notes.'
          : `${p.runs} training run${p.runs === 1 ? '' : 's'} so far. Evaluate shows how good a model is; Run uses it on new notes.`,
      isDone: p.runs > 0,
      view: 'train',
      action: 'Train',
    },
  ];
}

/** Where the projects whose Getting started the user hid are kept (ids, one list per window's origin). */
const HIDDEN_KEY = 'benchtop.firstStepsHidden';

/** The projects whose Getting started the user hid; none for a missing or damaged entry. */
export function hiddenFirstSteps(storage: Pick<Storage, 'getItem'>): number[] {
  try {
    const ids: unknown = JSON.parse(storage.getItem(HIDDEN_KEY) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
  } catch {
    return [];
  }
}

/** Hides `projectId`'s Getting started for good (the demo project never finishes every step). */
export function hideFirstSteps(storage: Pick<Storage, 'getItem' | 'setItem'>, projectId: number): void {
  const ids = hiddenFirstSteps(storage);
  if (!ids.includes(projectId)) storage.setItem(HIDDEN_KEY, JSON.stringify([...ids, projectId]));
}
