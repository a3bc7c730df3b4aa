import { describe, expect, it } from 'vitest';
import { architectureHelp, labelsHelp, parametersHelp, parametersInWords } from './fact-help.ts';

describe("a model's facts in plain words", () => {
  it('says a parameter count in words, to a figure that reads easily', () => {
    expect(parametersInWords(4_386_053)).toBe('4.4 million');
    expect(parametersInWords(109_482_240)).toBe('109 million');
    expect(parametersInWords(66_000_000)).toBe('66 million');
    expect(parametersInWords(1_340_000_000)).toBe('1.3 billion');
    expect(parametersInWords(850_400)).toBe('850 thousand');
    expect(parametersInWords(512)).toBe('512');
    expect(parametersHelp(4_386_053)).toContain('4.4 million here');
  });

  it('explains BIO tags with the model’s own first type, and the extra tags of BIOES and BILOU', () => {
    const bio = labelsHelp('token-classification', ['O', 'B-Medication', 'I-Medication', 'B-Symptom', 'I-Symptom'])!;
    expect(bio).toContain('B-Medication marks the first word of each Medication entity, I-Medication a word inside it, and O');
    expect(bio).toContain('“Type 2 diabetes” as a Disease is tagged B-Disease, I-Disease, I-Disease.');
    const bioes = labelsHelp('token-classification', ['O', 'B-Gene', 'I-Gene', 'E-Gene', 'S-Gene'])!;
    expect(bioes).toContain('I-Gene a word inside it, E- its last word, S- an entity of one word, and O');
    expect(bioes).not.toContain('B-Disease, I-Disease, I-Disease');
    expect(labelsHelp('token-classification', ['O', 'B-Gene', 'I-Gene', 'L-Gene', 'U-Gene'])).toContain(
      'L- its last word, U- an entity of one word',
    );
  });

  it('explains labels without prefixes, relation labels, and none for a model with no labels', () => {
    expect(labelsHelp('token-classification', ['O', 'Drug'])).toBe(
      'The tags it puts on each word: an entity type such as Drug, or O for a word outside any entity.',
    );
    expect(labelsHelp('sequence-classification', ['false', 'treats'])).toContain('relations it can tell apart');
    expect(labelsHelp('masked-lm', [])).toBeNull();
    expect(labelsHelp('token-classification', ['O'])).toBeNull();
  });

  it('says what the task in the architecture line means, and leaves an unknown task unexplained', () => {
    expect(architectureHelp('token-classification')).toBe(
      'The design of the network it is built on, and its kind of job: token-classification means it tags each word.',
    );
    expect(architectureHelp('summarization')).toBe('The design of the network it is built on, and its kind of job.');
  });
});
