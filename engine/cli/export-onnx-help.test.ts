// `benchtop export-onnx --help` describes the exported file as it is: its opset, input and output
// names, types and dynamic axes, and its metadata keys (none of it was written anywhere: a user
// of the .onnx had to open it in a viewer to learn the names).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHfFolder } from '../checkpoints/hf-folder.ts';
import { deserializeModel } from '../onnx/serialize.ts';
import { standaloneOnnx } from '../train/graphs.ts';
import { commandHelp, findCommand, type CommandSpec } from './commands.ts';

const GOLDENS = path.resolve(import.meta.dirname, '../../../shared/goldens/models');

describe.skipIf(!existsSync(GOLDENS))('export-onnx --help', () => {
  const help = commandHelp(findCommand(['export-onnx']) as CommandSpec).replace(/\s+/g, ' ');
  it.each([
    ['bert-token-classification', ['input_ids', 'attention_mask', 'token_type_ids'], ['B', 'T', 5]],
    ['distilbert-sequence-classification', ['input_ids', 'attention_mask'], ['B', 3]],
  ])('matches the file exported from %s', (name, inputs, logits) => {
    const m = loadHfFolder(path.join(GOLDENS, name), { requireVocab: false });
    const model = deserializeModel(standaloneOnnx(m.config, m.weights).bytes);
    expect(help).toContain(`ONNX opset ${model.opsetVersion}`);
    expect(model.graph.inputs.map((i) => i.name)).toEqual(inputs);
    for (const i of model.graph.inputs) {
      expect(help).toContain(i.name);
      expect([i.dtype, i.shape]).toEqual(['int64', ['B', 'T']]);
    }
    expect(help).toContain('Inputs: input_ids and attention_mask, int64 [batch, sequence], and token_type_ids (the same) for every family but DistilBERT');
    expect(model.graph.outputs.map((o) => [o.name, o.dtype, o.shape])).toEqual([['logits', 'float32', logits]]);
    expect(help).toContain('Output: logits, float32');
    expect(Object.keys(model.metadata).sort()).toEqual(['architecture', 'labels', 'task']);
    expect(help).toContain('metadata holds "architecture", "task" and "labels" (a JSON list, in logit order');
    expect(JSON.parse(model.metadata['labels'] as string)).toEqual(m.config.labels);
  });
});
