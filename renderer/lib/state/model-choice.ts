// A model another screen asks Evaluate or Run to open with: a finished run's "Evaluate" and
// "Run on new documents" (Evaluate kept the model last scored there, e.g. the teacher beside a
// student just distilled from it). The screen takes it once, when it is next shown.

export type ModelScreen = 'evaluate' | 'run';

const asked = new Map<ModelScreen, { modelId: string; task: 'ner' | 're' }>();

/** Asks `screen` to open with this model the next time it is shown. */
export function openWithModel(screen: ModelScreen, modelId: string, task: 'ner' | 're'): void {
  asked.set(screen, { modelId, task });
}

/** The model asked for `screen`, once (undefined when none was). */
export function takeModelFor(screen: ModelScreen): { modelId: string; task: 'ner' | 're' } | undefined {
  const choice = asked.get(screen);
  asked.delete(screen);
  return choice;
}
