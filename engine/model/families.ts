// The HF class names, config key layouts and defaults of the encoder families the engine builds.
// Not for: parsing a config.json (config.ts) or building graphs.

import type { Architecture, EncoderConfig, HiddenAct, Task } from './config.ts';

/** HF class names of each family's heads; missing entries (e.g. RobertaForMaskedLM) are unsupported. */
export const TASK_CLASS: Record<Architecture, Partial<Record<Task, string>>> = {
  bert: {
    'token-classification': 'BertForTokenClassification',
    'sequence-classification': 'BertForSequenceClassification',
    'masked-lm': 'BertForMaskedLM',
    base: 'BertModel',
  },
  distilbert: {
    'token-classification': 'DistilBertForTokenClassification',
    'sequence-classification': 'DistilBertForSequenceClassification',
    'masked-lm': 'DistilBertForMaskedLM',
    base: 'DistilBertModel',
  },
  roberta: {
    'token-classification': 'RobertaForTokenClassification',
    'sequence-classification': 'RobertaForSequenceClassification',
    base: 'RobertaModel',
  },
  electra: {
    'token-classification': 'ElectraForTokenClassification',
    'sequence-classification': 'ElectraForSequenceClassification',
    base: 'ElectraModel',
  },
  albert: {
    'token-classification': 'AlbertForTokenClassification',
    'sequence-classification': 'AlbertForSequenceClassification',
    base: 'AlbertModel',
  },
  mobilebert: {
    'token-classification': 'MobileBertForTokenClassification',
    'sequence-classification': 'MobileBertForSequenceClassification',
    base: 'MobileBertModel',
  },
};

export const ARCHITECTURES: Record<string, { architecture: Architecture; task: Task }> = {
  BertForPreTraining: { architecture: 'bert', task: 'masked-lm' },
};
for (const [architecture, tasks] of Object.entries(TASK_CLASS) as [Architecture, Partial<Record<Task, string>>][]) {
  for (const [task, cls] of Object.entries(tasks) as [Task, string][]) ARCHITECTURES[cls] = { architecture, task };
}

/**
 * The family of a head class this engine does not build (BertForQuestionAnswering,
 * MobileBertForMaskedLM as nlpie/bio-mobilebert ships, ElectraForPreTraining): its encoder is
 * that family's base model, as Hugging Face's AutoModelFor… loads it. Undefined for other names.
 */
export function familyOfHeadClass(name: string): Architecture | undefined {
  for (const [architecture, tasks] of Object.entries(TASK_CLASS) as [Architecture, Partial<Record<Task, string>>][]) {
    const stem = (tasks.base ?? '').replace(/Model$/, '');
    if (name.startsWith(stem) && /^(For[A-Z]\w*|LMHeadModel)$/.test(name.slice(stem.length))) return architecture;
  }
  return undefined;
}

/** Families whose config.json uses BERT's key names (hidden_size, num_hidden_layers, …). */
export const BERT_KEYED = new Set<Architecture>(['bert', 'roberta', 'electra', 'albert', 'mobilebert']);

/** Per-family defaults of the HF config classes, for keys a config.json leaves out. */
export const DEFAULTS: Record<Exclude<Architecture, 'distilbert'>, { vocab: number; hidden: number; embedding: number; layers: number; heads: number; inter: number; act: string; dropout: number; attnDropout: number; pad: number }> = {
  bert: { vocab: 30522, hidden: 768, embedding: 768, layers: 12, heads: 12, inter: 3072, act: 'gelu', dropout: 0.1, attnDropout: 0.1, pad: 0 },
  roberta: { vocab: 50265, hidden: 768, embedding: 768, layers: 12, heads: 12, inter: 3072, act: 'gelu', dropout: 0.1, attnDropout: 0.1, pad: 1 },
  electra: { vocab: 30522, hidden: 256, embedding: 128, layers: 12, heads: 4, inter: 1024, act: 'gelu', dropout: 0.1, attnDropout: 0.1, pad: 0 },
  albert: { vocab: 30000, hidden: 4096, embedding: 128, layers: 12, heads: 64, inter: 16384, act: 'gelu_new', dropout: 0, attnDropout: 0, pad: 0 },
  mobilebert: { vocab: 30522, hidden: 512, embedding: 128, layers: 24, heads: 4, inter: 512, act: 'relu', dropout: 0, attnDropout: 0.1, pad: 0 },
};


/** The HF class name of a config's family and head, or an error naming what is supported. */
export function hfClassName(cfg: Pick<EncoderConfig, 'architecture' | 'task'>): string {
  const cls = TASK_CLASS[cfg.architecture][cfg.task];
  if (!cls) {
    const have = Object.keys(TASK_CLASS[cfg.architecture]).join(', ');
    throw new Error(`${cfg.architecture} models support the tasks ${have}, not ${cfg.task}`);
  }
  return cls;
}

/** HF activation names → the engine's (gelu_pytorch_tanh is gelu_new's formula). */
export const HIDDEN_ACTS: Record<string, HiddenAct> = {
  gelu: 'gelu',
  gelu_new: 'gelu_new',
  relu: 'relu',
  gelu_pytorch_tanh: 'gelu_new',
};
