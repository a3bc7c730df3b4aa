// Model labels as the engine reads them (tasks/model-setup.ts `isGeneric`, which the renderer
// may not import): LABEL_0, LABEL_1… are the labels a head gets without names (HF's default),
// so the engine gives such a model a new head, and it cannot teach a student.

/** Whether every label is a generic LABEL_n (true for none, as the engine's rule). */
export function isGenericLabels(labels: readonly string[]): boolean {
  return labels.every((l) => /^LABEL_\d+$/.test(l));
}
