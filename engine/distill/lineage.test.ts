import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineageRecord, phiStatusOf, privacySection, startingPointEntry, type LineageEntry } from './lineage.ts';

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

  it('are named by folder name, not by the full path', () => {
    const dir = folder('no-phi');
    const e = startingPointEntry(dir, 'base-model', 'weights', 'unknown');
    expect(e.source).not.toContain(path.dirname(dir));
    expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
