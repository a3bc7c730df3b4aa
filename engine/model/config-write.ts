// Writes an EncoderConfig back as a Hugging Face config.json object, in the key layout of its
// family; keys the engine does not model are kept from the parsed original.

import type { EncoderConfig } from './config.ts';
import { BERT_KEYED, HIDDEN_ACTS, hfClassName } from './families.ts';

/** Keys of DistilBERT's config layout and of the BERT-keyed one: a config keeps only its own. */
const DISTILBERT_KEYS = ['dim', 'n_layers', 'n_heads', 'hidden_dim', 'activation', 'dropout', 'sinusoidal_pos_embds'];
const BERT_KEYS = ['hidden_size', 'num_hidden_layers', 'num_attention_heads', 'intermediate_size', 'hidden_act', 'type_vocab_size', 'layer_norm_eps'];

/** Build a Hugging Face config.json object; keys not modelled here are taken from `cfg.raw`. */
export function toHfConfig(cfg: EncoderConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { ...cfg.raw };
  const rawAct = (key: string): string => {
    const v = cfg.raw[key];
    return typeof v === 'string' && HIDDEN_ACTS[v] === cfg.hiddenAct ? v : cfg.hiddenAct;
  };
  out['architectures'] = [hfClassName(cfg)];
  out['model_type'] = cfg.architecture;
  out['vocab_size'] = cfg.vocabSize;
  out['max_position_embeddings'] = cfg.maxPositions;
  out['pad_token_id'] = cfg.padTokenId;
  if (BERT_KEYED.has(cfg.architecture)) {
    for (const k of DISTILBERT_KEYS) delete out[k];
    out['hidden_size'] = cfg.hiddenSize;
    out['num_hidden_layers'] = cfg.numLayers;
    out['num_attention_heads'] = cfg.numHeads;
    out['intermediate_size'] = cfg.intermediateSize;
    out['type_vocab_size'] = cfg.typeVocabSize;
    out['layer_norm_eps'] = cfg.layerNormEps;
    out['hidden_act'] = rawAct('hidden_act');
    out['hidden_dropout_prob'] = cfg.hiddenDropout;
    out['attention_probs_dropout_prob'] = cfg.attentionDropout;
    if (cfg.architecture === 'albert') out['classifier_dropout_prob'] = cfg.classifierDropout;
    else {
      out['classifier_dropout'] =
        cfg.classifierDropout === cfg.hiddenDropout ? null : cfg.classifierDropout;
    }
    if (cfg.embeddingSize !== undefined) out['embedding_size'] = cfg.embeddingSize;
    if (cfg.albert) {
      out['num_hidden_groups'] = cfg.albert.numHiddenGroups;
      out['inner_group_num'] = cfg.albert.innerGroupNum;
    }
    const m = cfg.mobile;
    if (m) {
      out['true_hidden_size'] = m.trueHiddenSize;
      if (m.useBottleneck) out['intra_bottleneck_size'] = m.trueHiddenSize;
      out['use_bottleneck'] = m.useBottleneck;
      out['use_bottleneck_attention'] = m.useBottleneckAttention;
      out['key_query_shared_bottleneck'] = m.keyQuerySharedBottleneck;
      out['num_feedforward_networks'] = m.numFeedforwardNetworks;
      out['normalization_type'] = m.noNorm ? 'no_norm' : 'layer_norm';
      out['trigram_input'] = m.trigramInput;
      out['classifier_activation'] = m.classifierActivation;
    } else out['position_embedding_type'] ??= 'absolute';
  } else {
    for (const k of BERT_KEYS) delete out[k];
    out['dim'] = cfg.hiddenSize;
    out['n_layers'] = cfg.numLayers;
    out['n_heads'] = cfg.numHeads;
    out['hidden_dim'] = cfg.intermediateSize;
    out['activation'] = rawAct('activation');
    out['dropout'] = cfg.hiddenDropout;
    out['attention_dropout'] = cfg.attentionDropout;
    out['sinusoidal_pos_embds'] = cfg.sinusoidalPositions;
    out['seq_classif_dropout'] =
      cfg.task === 'sequence-classification'
        ? cfg.classifierDropout
        : (cfg.raw['seq_classif_dropout'] ?? 0.2);
    out['qa_dropout'] ??= 0.1;
  }
  delete out['num_labels'];
  delete out['id2label'];
  delete out['label2id'];
  if (cfg.labels.length > 0) {
    out['id2label'] = Object.fromEntries(cfg.labels.map((l, i) => [String(i), l]));
    out['label2id'] = Object.fromEntries(cfg.labels.map((l, i) => [l, i]));
  }
  out['initializer_range'] ??= 0.02;
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k];
  return sorted;
}
