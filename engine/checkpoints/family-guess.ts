// The model family of a config.json that names none. Configs written before transformers 2.x
// (BioBERT v1.1, Bio_ClinicalBERT and other 2019 uploads) carry neither "model_type" nor
// "architectures"; Hugging Face then guesses from the folder's name ("bert" in the path). The
// weight names tell more reliably: a task model prefixes its encoder ("bert.", "distilbert."), a
// bare encoder has family-specific modules. Not for: checking the weights (the loader does).

import type { Architecture } from '../model/config.ts';

const PREFIXED: Architecture[] = ['bert', 'distilbert', 'roberta', 'electra', 'albert', 'mobilebert'];
/** Modules only one family's bare encoder has. */
const BARE: [RegExp, Architecture][] = [
  [/^transformer\.layer\./, 'distilbert'],
  [/^encoder\.albert_layer_groups\./, 'albert'],
  [/^embeddings\.embedding_transformation\./, 'mobilebert'],
  [/^embeddings_project\./, 'electra'],
];

/** Whether a config.json object names its family (model_type or architectures). */
export function namesFamily(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return true; // parseHfConfig refuses it
  const j = json as Record<string, unknown>;
  return (j['model_type'] !== undefined && j['model_type'] !== null) || (j['architectures'] !== undefined && j['architectures'] !== null);
}

/**
 * The family the weight names show, or undefined when they do not. `wordPiece`: the folder has
 * a vocab.txt, so a bare BERT-layout encoder is BERT (RoBERTa ships a BPE vocab.json instead).
 */
export function familyFromWeightNames(names: Iterable<string>, wordPiece: boolean): Architecture | undefined {
  const all = [...names];
  const prefixed = PREFIXED.filter((a) => all.some((n) => n.startsWith(`${a}.`)));
  if (prefixed.length === 1) return prefixed[0];
  if (prefixed.length > 1) return undefined;
  const bare = new Set(BARE.filter(([re]) => all.some((n) => re.test(n))).map(([, a]) => a));
  if (bare.size === 1) return [...bare][0];
  if (bare.size === 0 && wordPiece && all.some((n) => n.startsWith('encoder.layer.')) && all.includes('embeddings.word_embeddings.weight'))
    return 'bert';
  return undefined;
}
