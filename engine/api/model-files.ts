// The files of a model folder that Benchtop copies: models:import-folder and models:export.

/**
 * What a model folder holds besides its weights, copied when present by an import and an export
 * (an export writes lineage.json anew, with the library's status). A Benchtop model's training
 * card and metrics travel with it: an exported model imported elsewhere keeps them.
 */
export const MODEL_COMPANIONS = [
  'config.json',
  'vocab.txt',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'README.md',
  'training_card.md',
  'metrics.json',
  'lineage.json',
];
