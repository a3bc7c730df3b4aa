import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeShardedCheckpoint } from '../checkpoints/test-helpers.ts';
import { lineageRecord, phiStatusOf, privacySection, startingPointEntry, teacherEntry, type LineageEntry } from './lineage.ts';

const TEACHER: LineageEntry = { kind: 'teacher', source: 'teacher', containsPhi: true, gradients: false };
const TRANSFER: LineageEntry = { kind: 'distill-transfer', source: 'WordNet', containsPhi: false, gradients: true };

/** A model folder with a weights file and, when given, a lineage.json declaring `status`. */
function folder(status?: string): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'benchtop-lineage-')), 'base');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'model.safetensors'), 'weights');
  if (status !== undefined) writeFileSync(path.join(dir, 'lineage.json'), JSON.stringify({ phi_status: status, statement: '', entries: [] }));
  return dir;
}

describe('weights a run starts from', () => {
  it('carry the PHI status of the model they came from, whatever the run trains on', () => {
    const phiBase = startingPointEntry(folder('trained-on-phi'), 'init', 'layers 0,2', 'no-phi');
    expect(phiBase).toMatchObject({ kind: 'init', phiStatus: 'trained-on-phi', containsPhi: true, gradients: true });
    expect(phiStatusOf([TEACHER, phiBase, TRANSFER])).toBe('trained-on-phi');
    // A task teacher without a record is PHI-trained by assumption, and so are its copied layers.
    expect(phiStatusOf([TEACHER, startingPointEntry(folder(), 'init', 'layers 0', 'trained-on-phi'), TRANSFER])).toBe('trained-on-phi');
    const distilled = startingPointEntry(folder('distilled-from-phi-teacher'), 'base-model', 'weights', 'unknown');
    expect(phiStatusOf([distilled, TRANSFER])).toBe('distilled-from-phi-teacher');
    expect(phiStatusOf([startingPointEntry(folder('no-phi'), 'base-model', 'weights', 'unknown'), TRANSFER])).toBe('no-phi');
  });

  it('of unknown origin make the status unknown, never "no PHI in training data"', () => {
    const noRecord = startingPointEntry(folder(), 'base-model', 'weights', 'unknown');
    expect(noRecord.source).toBe('weights of model "base" (no lineage.json: taken as unknown)');
    expect(phiStatusOf([TEACHER, noRecord, TRANSFER])).toBe('unknown');
    const garbled = startingPointEntry(folder('none at all'), 'base-model', 'weights', 'no-phi');
    expect(garbled.phiStatus).toBe('unknown');
    const card = privacySection(lineageRecord([TEACHER, noRecord, TRANSFER]));
    expect(card).toMatch(/cannot tell whether PHI shaped its weights/);
    // Its row says so too (it said PHI "no" under a status of unknown).
    expect(card).toContain('| base-model | weights of model "base" (no lineage.json: taken as unknown) |  | yes | unknown |');
    expect(card).toContain('| distill-transfer | WordNet |  | yes | no |');
    expect(card).not.toMatch(/What this guarantees|No private data/);
  });

  it('of a random init taught by a teacher of unknown status: the card blames the teacher, not the start', () => {
    const dir = folder();
    const record = lineageRecord([teacherEntry(dir, true, 'unknown'), TRANSFER]);
    expect(record.phi_status).toBe('unknown');
    expect(record.statement).toBe('PHI status unknown: it started from, or was taught by, a model whose PHI status is not recorded (lineage.json)');
    const card = privacySection(record);
    expect(card).toMatch(/Its teacher has no record of whether PHI shaped its weights/);
    expect(card).not.toMatch(/A model this one started from/);
    // The same teacher known only by its own lineage.json (the CLI's case) gives the same status.
    expect(phiStatusOf([teacherEntry(folder('unknown')), TRANSFER])).toBe('unknown');
    expect(phiStatusOf([teacherEntry(folder('unknown'), false), TRANSFER])).toBe('unknown');
    expect(phiStatusOf([teacherEntry(folder('trained-on-phi')), TRANSFER])).toBe('distilled-from-phi-teacher');
  });

  it('are named by folder name, not by the full path', () => {
    const dir = folder('no-phi');
    const e = startingPointEntry(dir, 'base-model', 'weights', 'unknown');
    expect(e.source).not.toContain(path.dirname(dir));
    expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('of a sharded checkpoint are identified by the hash of the index and every shard', () => {
    const tensors = new Map(['a', 'b', 'c'].map((k, i) => [k, { dtype: 'float32' as const, dims: [2], data: Float32Array.of(i, i + 1) }]));
    const sharded = (values = tensors): string => {
      const dir = path.join(mkdtempSync(path.join(tmpdir(), 'benchtop-lineage-')), 'sharded');
      mkdirSync(dir);
      writeShardedCheckpoint(dir, values, 'safetensors', 2);
      return dir;
    };
    const [one, two] = [sharded(), sharded()] as [string, string];
    const sha = startingPointEntry(one, 'base-model', 'weights', 'unknown').sha256;
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    expect(teacherEntry(two).sha256).toBe(sha);
    expect(teacherEntry(two).source).toBe('teacher model "sharded" (identified by the sha256 of its weights)');
    // A change in the last shard alone is another model.
    const changed = sharded(new Map([...tensors, ['c', { dtype: 'float32' as const, dims: [2], data: Float32Array.of(9, 9) }]]));
    expect(startingPointEntry(changed, 'base-model', 'weights', 'unknown').sha256).not.toBe(sha);
  });
});
