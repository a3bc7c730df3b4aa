// Students initialised from teacher layers (DistilBERT / DistilBioBERT): same widths, fewer
// layers; student layer i takes teacher layer map[i] (every other layer by default), and the
// embeddings and task or MLM head are copied. Refuses clearly when widths differ.

import { presetConfig, PRESETS, type Architecture, type EncoderConfig } from '../model/config.ts';
import type { HostTensor } from '../onnx/ir.ts';
import { parameterShapes } from '../model/bert.ts';
import { SettingError } from '../tasks/setting-error.ts';

/** Teacher layers for a student of `studentLayers`: evenly spread, starting at 0 (every other when half). */
export function everyOtherLayer(teacherLayers: number, studentLayers: number): number[] {
  if (studentLayers > teacherLayers) throw new SettingError(`a student of ${studentLayers} layers cannot take them from a teacher of ${teacherLayers}`);
  return Array.from({ length: studentLayers }, (_, i) => Math.floor((i * teacherLayers) / studentLayers));
}

/** Parses "0,2,4" (teacher layer of each student layer, 0-based). */
export function parseLayerMap(spec: string, teacherLayers: number): number[] {
  const map = spec.split(',').map((s) => Number(s.trim()));
  for (const l of map) {
    if (!Number.isInteger(l) || l < 0 || l >= teacherLayers) throw new SettingError(`--layer-map: "${spec}" must list teacher layers 0..${teacherLayers - 1}, one per student layer`);
  }
  return map;
}

/**
 * The student config of a preset size with the teacher's vocabulary, task and labels, in the
 * teacher's family when it is DistilBERT, else BERT (presets are BERT-shaped; a MobileBERT or
 * ALBERT teacher gets a plain BERT student). 'half-teacher' keeps the teacher's family.
 */
export function studentPresetConfig(name: string, teacher: EncoderConfig, arch: Architecture = teacher.architecture === 'distilbert' ? 'distilbert' : 'bert'): EncoderConfig {
  if (name === 'half-teacher') return { ...teacher, numLayers: Math.max(1, Math.floor(teacher.numLayers / 2)), raw: {} };
  if (!PRESETS[name]) throw new SettingError(`unknown student preset "${name}" (known: half-teacher, ${Object.keys(PRESETS).join(', ')})`);
  return presetConfig(name, arch, teacher.vocabSize, [...teacher.labels], teacher.task);
}

/** Student weights taken from the teacher's layers `map` (embeddings and head copied). */
export function studentFromTeacher(teacher: { config: EncoderConfig; weights: ReadonlyMap<string, HostTensor> }, student: EncoderConfig, map: readonly number[]): Map<string, HostTensor> {
  const t = teacher.config;
  const widths = ['hiddenSize', 'numHeads', 'intermediateSize', 'vocabSize', 'architecture'] as const;
  const differ = widths.filter((k) => t[k] !== student[k]);
  if (differ.length > 0) {
    throw new SettingError(`initialising the student from teacher layers needs the same ${differ.join(', ')} (teacher ${differ.map((k) => t[k]).join('/')}, student ${differ.map((k) => student[k]).join('/')}); use a random init or a projection-based recipe (tinybert)`);
  }
  if (map.length !== student.numLayers) throw new SettingError(`--layer-map lists ${map.length} teacher layers for a ${student.numLayers}-layer student`);
  const layerRe = /^(.*\.(?:layer))\.(\d+)\.(.*)$/;
  const out = new Map<string, HostTensor>();
  for (const [name] of parameterShapes(student)) {
    const m = layerRe.exec(name);
    const src = m ? `${m[1]}.${map[Number(m[2])]}.${m[3]}` : name;
    const w = teacher.weights.get(src);
    if (!w) throw new Error(`the teacher has no parameter "${src}" for the student's "${name}"`);
    out.set(name, w);
  }
  return out;
}
