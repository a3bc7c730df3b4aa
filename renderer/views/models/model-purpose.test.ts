import { describe, expect, it } from 'vitest';
import { entityTypesOf, modelPurpose } from './model-purpose.ts';

describe('what a model does, in plain words', () => {
  it('names the entity types a token classifier finds, from its BIO or BIOES labels', () => {
    expect(modelPurpose('token-classification', ['O', 'B-Medication', 'I-Medication', 'B-Symptom', 'I-Symptom'])).toBe(
      'Finds Medication, Symptom',
    );
    expect(entityTypesOf(['O', 'S-Gene', 'B-Gene', 'E-Gene', 'U-Chemical', 'L-Chemical'])).toEqual(['Gene', 'Chemical']);
    expect(modelPurpose('token-classification', ['O'])).toBe('Finds entities');
  });

  it('says a pre-trained (masked-LM) model is only a starting point, and leaves unknown tasks as they are', () => {
    expect(modelPurpose('masked-lm', [])).toBe('A starting point to train from; finds nothing by itself');
    expect(modelPurpose('sequence-classification', ['false', 'treats'])).toBe('Finds relations between entities');
    expect(modelPurpose('summarization', [])).toBe('summarization');
  });
});
