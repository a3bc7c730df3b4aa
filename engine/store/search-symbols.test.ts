// Search by symbols and punctuation (migration 14, store/search-fold.ts), over sentences from real
// transcribed clinic notes (../shared/data/documents/mtsamples) and a few written like them: "%"
// finds the documents with a percent sign (not every document, as a LIKE wildcard would), "5%"
// finds "5% dextrose", "°C", "mg/dL", "+", "#", "🩺" theirs, still blind to case and accents.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Document } from '../formats/types.ts';
import { createDataset } from './datasets.ts';
import { type Workspace, openMemory } from './db.ts';
import { countDocuments, insertDocuments, listDocuments } from './documents.ts';
import { createProject } from './projects.ts';
import { searchMatch } from './search-fold.ts';
import { sql } from './sql.ts';

const NOTES: Record<string, string> = {
  gleason: "Small focus of adenocarcinoma, Gleason's 3 + 3 in approximately 5% of the tissue.",
  dextrose: 'IV fluids: D5W (5% dextrose in water) at 75 mL/hr; glucose 182 mg/dL this morning.',
  percent: 'Ejection fraction 25%, improved from 20 % last year.',
  fever: 'Febrile to 38.9 °C overnight 🩺; CXR clear. Folate 400 µg daily.',
  teeth: 'Removal of completely bony impacted teeth #1, #16, #17, and #32.',
  blank: 'Dissected between the __________ and posterior bladder wall.',
  path: 'Scanned report saved under C:\\reports\\today. Blood cultures pending.',
  apostrophe: 'She was uncomfortable after today’s instillation ❤️ and chose to cancel.',
  apart: 'MG was 2.1, and the DL cholesterol stayed high; cardiac workup normal after arrest of bleeding.',
  arrest: 'Witnessed cardiac arrest, ROSC after 8 minutes. Café visit: Müller–Lüdenscheid, µg dosing.',
};

let ws: Workspace;
let projectId: number;
let idOf: Record<string, number>;
beforeEach(() => {
  ws = openMemory();
  projectId = createProject(ws.write, { name: 'Notes' }).id;
  const datasetId = createDataset(ws.write, { projectId, name: 'clinic', containsPhi: false }).id;
  const docs: Document[] = Object.entries(NOTES).map(([id, text]) => ({ id, text, entities: [], relations: [] }));
  const ids = insertDocuments(ws.write, docs, { projectId, datasetId, format: 'text' }).ids;
  idOf = Object.fromEntries(Object.keys(NOTES).map((name, i) => [name, ids[i] ?? 0]));
  return () => ws.close();
});

/** The names of the notes a search lists, sorted (and their count agrees). */
function found(search: string): string[] {
  const ids = new Set(listDocuments(ws.read, { projectId, search, limit: 100 }).map((d) => d.id));
  const names = Object.keys(idOf).filter((name) => ids.has(idOf[name] ?? -1)).sort();
  expect(countDocuments(ws.read, { projectId, search })).toBe(names.length);
  return names;
}

describe('search by symbols', () => {
  it('finds the notes holding a symbol, and not the others ("%" and "_" are no wildcards)', () => {
    expect(found('%')).toEqual(['dextrose', 'gleason', 'percent']);
    expect(found('_')).toEqual(['blank']);
    expect(found('\\')).toEqual(['path']);
    expect(found('+')).toEqual(['gleason']);
    expect(found('#')).toEqual(['teeth']);
    expect(found('🩺')).toEqual(['fever']);
    expect(found('°')).toEqual(['fever']);
  });

  it('finds a number or word with its symbol, next to each other ("5%" is not "25%", "mg/dL" not "MG … DL")', () => {
    expect(found('5%')).toEqual(['dextrose', 'gleason']);
    expect(found('20%')).toEqual(['percent']); // "20 %" written with a space
    expect(found('5% dextrose')).toEqual(['dextrose']);
    expect(found('°C')).toEqual(['fever']); // it found every note with a word starting with c
    expect(found('38.9 °c')).toEqual(['fever']);
    expect(found('38.9°C')).toEqual(['fever']);
    expect(found('mg/dL')).toEqual(['dextrose']);
    expect(found('mg dl')).toEqual(['apart', 'dextrose']); // words apart, as before
    expect(found('#16')).toEqual(['teeth']);
    expect(found('#2')).toEqual([]);
    expect(found('3 + 3')).toEqual(['gleason']);
    expect(found('C:\\reports')).toEqual(['path']);
    expect(found('(5%')).toEqual(['dextrose']);
  });

  it('stays blind to case, accents and typography: µ as μ, ’ as \', – as -, ❤️ as ❤', () => {
    expect(found('µg')).toEqual(['arrest', 'fever']); // micro sign
    expect(found('μg')).toEqual(['arrest', 'fever']); // Greek mu
    expect(found("today's")).toEqual(['apostrophe']);
    expect(found('❤')).toEqual(['apostrophe']);
    expect(found('MULLER-LUDENSCHEID')).toEqual(['arrest']);
    expect(found('café')).toEqual(['arrest']);
  });

  it('takes words in double quotes as a phrase, and quotes, operators and stars as nothing special', () => {
    expect(found('cardiac arrest')).toEqual(['apart', 'arrest']);
    expect(found('"cardiac arrest"')).toEqual(['arrest']);
    expect(found('“cardiac arrest”')).toEqual(['arrest']);
    expect(found('"')).toEqual([]); // nothing to search for: only an id could match
    for (const search of ['NOT', 'cardiac OR', '(', 'NEAR(a b)', '*', '^', 'a:b', '-']) expect(() => found(search)).not.toThrow();
    expect(found('-')).toEqual(['arrest']); // Müller–Lüdenscheid's dash
    expect(found('*')).toEqual([]);
    expect(searchMatch('  " ')).toBeUndefined();
    ws.write.run(sql`INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')`);
  });
});
