import { describe, expect, it } from 'vitest';
import { lineagePhrase } from './lineage-text.ts';

describe('lineagePhrase', () => {
  it('reads an imported folder as its import, not as pre-training on a folder', () => {
    expect(lineagePhrase({ kind: 'pretrain', source: 'imported folder "sharded-ner"' })).toBe('imported from the folder "sharded-ner"');
    // Pre-training on text stays pre-training.
    expect(lineagePhrase({ kind: 'pretrain', source: 'text "notes.txt"' })).toBe('pre-trained on text "notes.txt"');
  });

  it('leaves out a parent model’s id and says its PHI status as the badges do', () => {
    const id = '8ed2a5d8-f3ce-4d28-bfd7-936038145f8b';
    expect(lineagePhrase({ kind: 'base-model', source: `model "Sharded NER" (${id}, no-phi)` })).toBe('based on model "Sharded NER" (No patient data)');
    expect(lineagePhrase({ kind: 'teacher', source: `model "Ward (v2)" (${id}, trained-on-phi), now named “Ward”` })).toBe(
      'taught by model "Ward (v2)" (Trained on patient data), now named “Ward”',
    );
    // A status the screen does not know, or another record's words, stay as recorded.
    expect(lineagePhrase({ kind: 'init', source: `model "X" (${id}, someday)` })).toBe(`started from model "X" (${id}, someday)`);
    expect(lineagePhrase({ kind: 'fine-tune', source: 'dataset "Demo notes" (synthetic)' })).toBe('fine-tuned on dataset "Demo notes" (synthetic)');
  });
});
