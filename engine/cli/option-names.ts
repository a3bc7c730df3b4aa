// Names the CLI's parser, help and flag checks need before any command runs: the data formats and
// the distillation flags. Kept apart from the command modules, which load the engine (onnxruntime,
// the training stack, the document readers): `benchtop --help`, `--version` or a mistyped flag
// answers without loading them.

export const INPUT_FORMATS = [
  'text',
  'pubtator',
  'brat',
  'bioc-xml',
  'bioc-json',
  'conll',
  'jsonl',
  'csv',
  'pdf',
  'docx',
  're-tsv',
];
export const EXPORT_FORMATS = ['jsonl', 'brat', 'bioc-xml', 'bioc-json', 'pubtator', 'conll', 'csv'];

export const DISTILL_OPTIONS = {
  teacher: { type: 'string' }, student: { type: 'string' }, 'student-preset': { type: 'string' }, 'init-from-teacher': { type: 'boolean' },
  'layer-map': { type: 'string' }, transfer: { type: 'string' }, temperature: { type: 'string' }, alpha: { type: 'string' },
  'private-data': { type: 'string' }, steps: { type: 'string' }, hidden: { type: 'string' }, 'max-per-source': { type: 'string' },
  cache: { type: 'string' }, text: { type: 'string' }, 'whole-word-mask': { type: 'boolean' }, recipe: { type: 'string' },
  'sinusoidal-positions': { type: 'boolean' }, 'text-contains-phi': { type: 'boolean' },
} as const;
