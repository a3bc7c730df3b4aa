// The general-distillation recipes by name: what `benchtop distill-general --recipe` accepts. Kept
// apart from general-distill.ts so the CLI's help and flag checks name them without loading the
// training stack.

export type Recipe = 'distilbiobert' | 'tinybert' | 'compactbiobert';
export const RECIPES: readonly Recipe[] = ['distilbiobert', 'tinybert', 'compactbiobert'];
