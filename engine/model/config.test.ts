// Tests for HF config.json parsing/serialising and presets, against the golden model configs.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../checkpoints/errors.ts';
import { parseHfConfig, presetConfig, PRESETS } from './config.ts';
import { toHfConfig } from './config-write.ts';

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');
const readConfig = (model: string): unknown =>
  JSON.parse(readFileSync(path.join(GOLDENS, model, 'config.json'), 'utf8'));

describe('parseHfConfig', () => {
  it('parses the BERT goldens', () => {
    const c = parseHfConfig(readConfig('bert-token-classification'), 'config.json');
    expect(c).toMatchObject({
      architecture: 'bert',
      task: 'token-classification',
      vocabSize: 1000,
      hiddenSize: 32,
      numLayers: 2,
      numHeads: 4,
      intermediateSize: 64,
      maxPositions: 512,
      typeVocabSize: 2,
      layerNormEps: 1e-12,
      hiddenAct: 'gelu',
      hiddenDropout: 0.1,
      attentionDropout: 0.1,
      classifierDropout: 0.1,
      numLabels: 5,
      padTokenId: 0,
      sinusoidalPositions: false,
    });
    expect(c.labels).toEqual(['LABEL_0', 'LABEL_1', 'LABEL_2', 'LABEL_3', 'LABEL_4']);
    expect(parseHfConfig(readConfig('bert-sequence-classification'), 'c').task).toBe(
      'sequence-classification',
    );
    const mlm = parseHfConfig(readConfig('bert-masked-lm'), 'c');
    expect(mlm.task).toBe('masked-lm');
    expect(mlm.labels).toEqual([]);
  });

  it('parses the DistilBERT goldens', () => {
    const c = parseHfConfig(readConfig('distilbert-sequence-classification'), 'c');
    expect(c).toMatchObject({
      architecture: 'distilbert',
      task: 'sequence-classification',
      hiddenSize: 48,
      numLayers: 2,
      numHeads: 4,
      intermediateSize: 96,
      typeVocabSize: 0,
      layerNormEps: 1e-12,
      classifierDropout: 0.2,
      numLabels: 3,
    });
    expect(
      parseHfConfig(readConfig('distilbert-token-classification'), 'c').classifierDropout,
    ).toBe(0.1);
    expect(parseHfConfig(readConfig('distilbert-masked-lm'), 'c').task).toBe('masked-lm');
  });

  it('parses the MobileBERT, RoBERTa, ELECTRA and ALBERT goldens', () => {
    const m = parseHfConfig(readConfig('mobilebert-sequence-classification'), 'c');
    expect(m).toMatchObject({ architecture: 'mobilebert', task: 'sequence-classification', hiddenSize: 32, embeddingSize: 16, intermediateSize: 64, hiddenAct: 'relu', hiddenDropout: 0, numLabels: 3 });
    expect(m.mobile).toEqual({ trueHiddenSize: 16, useBottleneck: true, useBottleneckAttention: false, keyQuerySharedBottleneck: true, numFeedforwardNetworks: 2, noNorm: true, trigramInput: true, classifierActivation: true });
    const r = parseHfConfig(readConfig('roberta-token-classification'), 'c');
    expect(r).toMatchObject({ architecture: 'roberta', hiddenSize: 64, maxPositions: 514, typeVocabSize: 1, layerNormEps: 1e-5, padTokenId: 1 });
    const e = parseHfConfig(readConfig('electra-token-classification'), 'c');
    expect(e).toMatchObject({ architecture: 'electra', hiddenSize: 32, embeddingSize: 16 });
    const a = parseHfConfig(readConfig('albert-token-classification'), 'c');
    expect(a).toMatchObject({ architecture: 'albert', hiddenSize: 32, embeddingSize: 16, hiddenAct: 'gelu_new', hiddenDropout: 0, classifierDropout: 0.1 });
    expect(a.albert).toEqual({ numHiddenGroups: 1, innerGroupNum: 1 });
  });

  it('round-trips every golden config.json exactly', () => {
    const models = readdirSync(GOLDENS).filter((d) => existsSync(path.join(GOLDENS, d, 'config.json')));
    expect(models).toHaveLength(12);
    for (const m of models) {
      const json = readConfig(m);
      expect(toHfConfig(parseHfConfig(json, 'c')), m).toEqual(json);
    }
  });

  it('rejects unsupported families and heads and says which are supported', () => {
    for (const arch of ['DebertaV2ForTokenClassification', 'XLNetForTokenClassification']) {
      const run = (): unknown => parseHfConfig({ architectures: [arch] }, '/x/config.json');
      expect(run).toThrow(CheckpointError);
      expect(run).toThrow(
        new RegExp(`/x/config\\.json: unsupported architecture "${arch}".*supported: model_type "bert", "distilbert", "roberta", "electra", "albert", "mobilebert"`),
      );
    }
    expect(() => parseHfConfig({ architectures: ['XLMRobertaForMaskedLM'] }, 'f')).toThrow(
      /unsupported architecture "XLMRobertaForMaskedLM" \(supported: model_type "bert"/,
    );
    expect(() => parseHfConfig({ model_type: 'xlnet' }, 'f')).toThrow(
      /unsupported model_type "xlnet"/,
    );
    expect(() => parseHfConfig({ model_type: 'mobilebert', normalization_type: 'batch_norm' }, 'f')).toThrow(
      /unsupported normalization_type "batch_norm"/,
    );
    expect(() => parseHfConfig({ model_type: 'albert', num_hidden_layers: 12, num_hidden_groups: 5 }, 'f')).toThrow(
      /not a multiple of num_hidden_groups 5/,
    );
    expect(() =>
      parseHfConfig({ architectures: ['BertModel'], model_type: 'distilbert' }, 'f'),
    ).toThrow(/does not match/);
    expect(() => parseHfConfig([], 'f')).toThrow(/JSON object/);
    expect(() => parseHfConfig({ model_type: 'bert', hidden_size: 'big' }, 'f')).toThrow(
      /"hidden_size" must be a number/,
    );
    expect(() => parseHfConfig({ model_type: 'bert', hidden_size: 30 }, 'f')).toThrow(
      /not a multiple/,
    );
    expect(() => parseHfConfig({ model_type: 'bert', hidden_act: 'swish' }, 'f')).toThrow(
      /unsupported "hidden_act"/,
    );
    expect(() =>
      parseHfConfig({ model_type: 'bert', position_embedding_type: 'relative_key' }, 'f'),
    ).toThrow(/position_embedding_type/);
  });

  it('reads a head class it does not build (nlpie/bio-mobilebert\'s MobileBertForMaskedLM) as its family\'s encoder', () => {
    // Refused before: the encoder, which fine-tuning starts from, was there to use.
    const cases: [string, string][] = [
      ['MobileBertForMaskedLM', 'mobilebert'],
      ['MobileBertForPreTraining', 'mobilebert'],
      ['RobertaForMaskedLM', 'roberta'],
      ['ElectraForPreTraining', 'electra'],
      ['AlbertForMaskedLM', 'albert'],
      ['BertForQuestionAnswering', 'bert'],
      ['DistilBertForQuestionAnswering', 'distilbert'],
      ['BertLMHeadModel', 'bert'],
    ];
    for (const [cls, family] of cases) {
      const c = parseHfConfig({ architectures: [cls] }, 'f');
      expect([c.architecture, c.task], cls).toEqual([family, 'base']);
    }
    expect(() => parseHfConfig({ architectures: ['RobertaForMaskedLM'], model_type: 'bert' }, 'f')).toThrow(/does not match/);
    expect(() => parseHfConfig({ architectures: ['RobertaPreLayerNormForMaskedLM'] }, 'f')).toThrow(/unsupported architecture/);
    // A causal decoder is still refused.
    expect(() => parseHfConfig({ architectures: ['BertLMHeadModel'], is_decoder: true }, 'f')).toThrow(/is_decoder/);
  });

  it('refuses keys of the wrong kind instead of falling back to a default', () => {
    const cfg = readConfig('bert-token-classification') as Record<string, unknown>;
    // A bare string is not a list: its first letter must not be taken as the class (a base encoder).
    expect(() => parseHfConfig({ ...cfg, architectures: 'BertForTokenClassification' }, 'f')).toThrow(
      /f: "architectures" must be a list of class names.*got "BertForTokenClassification"/,
    );
    expect(() => parseHfConfig({ ...cfg, architectures: [7] }, 'f')).toThrow(/"architectures" must be a list/);
    expect(parseHfConfig({ ...cfg, architectures: null }, 'f').task).toBe('base');
    expect(() => parseHfConfig({ ...cfg, hidden_dropout_prob: 1 }, 'f')).toThrow(
      /"hidden_dropout_prob" is a dropout probability and must be in \[0, 1\), got 1/,
    );
    expect(() => parseHfConfig({ model_type: 'distilbert', attention_dropout: 2 }, 'f')).toThrow(/"attention_dropout"/);
    const { id2label: _i, label2id: _l, ...unlabelled } = cfg;
    expect(() => parseHfConfig({ ...unlabelled, num_labels: '5' }, 'f')).toThrow(/"num_labels" must be a positive integer, got "5"/);
    expect(parseHfConfig({ ...unlabelled, num_labels: 5 }, 'f').numLabels).toBe(5);
    expect(() => parseHfConfig({ ...cfg, pad_token_id: 1000 }, 'f')).toThrow(/f: pad_token_id 1000 is past the word embedding table \(vocab_size 1000\)/);
    expect(() => parseHfConfig({ model_type: 'distilbert', vocab_size: 10, pad_token_id: 10 }, 'f')).toThrow(/pad_token_id 10/);
    const mlm = readConfig('bert-masked-lm') as Record<string, unknown>;
    expect(() => parseHfConfig({ ...mlm, tie_word_embeddings: false }, 'f')).toThrow(/"tie_word_embeddings": false/);
    expect(parseHfConfig({ ...mlm, tie_word_embeddings: true }, 'f').task).toBe('masked-lm');
    // A quoted "true" must not silently read as false (the sinusoidal table is frozen in HF).
    expect(() => parseHfConfig({ model_type: 'distilbert', sinusoidal_pos_embds: 'true' }, 'f')).toThrow(
      /f: "sinusoidal_pos_embds" must be true or false, got "true"/,
    );
    expect(() => parseHfConfig({ ...mlm, tie_word_embeddings: 'false' }, 'f')).toThrow(/"tie_word_embeddings" must be true or false/);
  });

  it('refuses heads whose Hugging Face loss or attention differs from what is built (loaded silently before)', () => {
    const seq = readConfig('distilbert-sequence-classification') as Record<string, unknown>;
    for (const problem of ['multi_label_classification', 'regression']) {
      expect(() => parseHfConfig({ ...seq, problem_type: problem }, 'f')).toThrow(
        `f: problem_type "${problem}" is not supported: Benchtop builds single-label classifiers (softmax, cross-entropy) with at least 2 labels`,
      );
    }
    expect(parseHfConfig({ ...seq, problem_type: 'single_label_classification' }, 'f').numLabels).toBe(3);
    const { id2label: _i, label2id: _l, ...unlabelled } = seq;
    expect(() => parseHfConfig({ ...unlabelled, num_labels: 1 }, 'f')).toThrow(/problem_type "regression" \(what Hugging Face makes of num_labels 1\) is not supported/);
    // A token classifier's loss is always cross-entropy in HF, whatever problem_type says.
    const tok = readConfig('bert-token-classification') as Record<string, unknown>;
    expect(parseHfConfig({ ...tok, problem_type: 'multi_label_classification' }, 'f').task).toBe('token-classification');
    expect(() => parseHfConfig({ ...tok, is_decoder: true }, 'f')).toThrow('f: "is_decoder": true (causal attention) is not supported: Benchtop builds bidirectional encoders');
    expect(parseHfConfig({ ...tok, is_decoder: false }, 'f').task).toBe('token-classification');
  });

  it('applies HF defaults for missing keys and keeps unknown keys', () => {
    const c = parseHfConfig({ model_type: 'bert', my_key: 7 }, 'f');
    expect(c).toMatchObject({ task: 'base', hiddenSize: 768, numLayers: 12, vocabSize: 30522 });
    const out = toHfConfig(c);
    expect(out['my_key']).toBe(7);
    expect(out['architectures']).toEqual(['BertModel']);
    const d = parseHfConfig(
      {
        model_type: 'distilbert',
        activation: 'gelu_new',
        sinusoidal_pos_embds: true,
        classifier_dropout: 0.5,
      },
      'f',
    );
    expect(d).toMatchObject({
      hiddenSize: 768,
      numLayers: 6,
      hiddenAct: 'gelu_new',
      sinusoidalPositions: true,
    });
    const dj = toHfConfig(d);
    expect(dj).toMatchObject({
      dim: 768,
      n_layers: 6,
      n_heads: 12,
      hidden_dim: 3072,
      activation: 'gelu_new',
      sinusoidal_pos_embds: true,
    });
    expect(dj).not.toHaveProperty('hidden_size');
  });
});

describe('presets', () => {
  it('builds configs with the documented sizes', () => {
    expect(PRESETS['tiny-4L-312']).toMatchObject({
      numLayers: 4,
      hiddenSize: 312,
      numHeads: 12,
      intermediateSize: 1200,
    });
    expect(PRESETS['bioformer-8L']).toMatchObject({
      numLayers: 8,
      hiddenSize: 512,
      numHeads: 8,
      intermediateSize: 2048,
      vocabSize: 32768,
    });
    const c = presetConfig(
      'bioformer-16L',
      'bert',
      32768,
      ['O', 'B-Chem', 'I-Chem'],
      'token-classification',
    );
    expect(c).toMatchObject({
      numLayers: 16,
      hiddenSize: 384,
      numHeads: 6,
      intermediateSize: 1536,
      vocabSize: 32768,
      numLabels: 3,
    });
    const json = toHfConfig(c);
    expect(json).toMatchObject({
      architectures: ['BertForTokenClassification'],
      model_type: 'bert',
      hidden_size: 384,
      id2label: { '1': 'B-Chem' },
    });
    expect(parseHfConfig(JSON.parse(JSON.stringify(json)), 'c')).toMatchObject({ ...c, raw: json });
    const d = presetConfig(
      'distilbert-6L',
      'distilbert',
      1000,
      ['a', 'b'],
      'sequence-classification',
    );
    expect(toHfConfig(d)).toMatchObject({
      architectures: ['DistilBertForSequenceClassification'],
      dim: 768,
      n_layers: 6,
      seq_classif_dropout: 0.2,
    });
    for (const name of Object.keys(PRESETS)) {
      const p = presetConfig(name, 'bert', 100, [], 'masked-lm');
      expect(p.hiddenSize % p.numHeads).toBe(0);
    }
  });

  it('lists the preset names for an unknown preset', () => {
    expect(() => presetConfig('huge', 'bert', 10, [], 'base')).toThrow(
      /unknown model preset "huge".*tiny-4L-312.*bert-base/,
    );
    expect(() => presetConfig('bert-base', 'bert', 10, [], 'token-classification')).toThrow(
      /at least one label/,
    );
  });
});
