// Project templates and the first-launch demo: a biomedical label schema (Disease, Chemical,
// Gene; treats, causes, associated_with) and a few synthetic notes from resources/demo, so a
// newcomer sees annotated and unannotated documents at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entity, Relation } from '../formats/types.ts';
import { createDataset } from '../store/datasets.ts';
import { insertDocuments } from '../store/documents.ts';
import {
  createProject,
  listProjects,
  upsertEntityType,
  upsertRelationType,
} from '../store/projects.ts';
import type { WriteDb } from '../store/db.ts';
import type { ApiContext } from './context.ts';
import type { LabelSchema } from './dto.ts';
import { ApiError } from './errors.ts';
import { readSettingsFile, writeSettingsFile } from './system.ts';

/** The schema of the 'biomedical' template. */
export const BIOMEDICAL_SCHEMA: LabelSchema = {
  entityTypes: [
    {
      name: 'Disease',
      color: '#d6336c',
      shortcut: 'd',
      description: 'Diseases, disorders, symptoms and findings',
    },
    {
      name: 'Chemical',
      color: '#2b8a3e',
      shortcut: 'c',
      description: 'Drugs and other chemical substances',
    },
    {
      name: 'Gene',
      color: '#1c7ed6',
      shortcut: 'g',
      description: 'Genes, gene products and variants',
    },
  ],
  relationTypes: [
    {
      name: 'treats',
      arg1Types: ['Chemical'],
      arg2Types: ['Disease'],
      color: '#0c8599',
      symmetric: false,
      description: 'A drug is given for a disease',
    },
    {
      name: 'causes',
      arg1Types: ['Chemical'],
      arg2Types: ['Disease'],
      color: '#e8590c',
      symmetric: false,
      description: 'A drug causes an adverse effect',
    },
    {
      name: 'associated_with',
      arg1Types: ['Gene'],
      arg2Types: ['Disease'],
      color: '#7048e8',
      symmetric: false,
      description: 'A gene or variant is linked to a disease',
    },
  ],
};

/** Writes a label schema into a project (upsert by name). */
export function applySchema(db: WriteDb, projectId: number, schema: LabelSchema): void {
  for (const t of schema.entityTypes) upsertEntityType(db, projectId, t);
  for (const t of schema.relationTypes) upsertRelationType(db, projectId, t);
}

interface DemoFile {
  project: { name: string; description: string };
  dataset: { name: string; source: string };
  documents: {
    id: string;
    text: string;
    /** [type, mention, occurrence (0-based, default 0)] */
    entities: [string, string, number?][];
    /** [type, arg1 entity index, arg2 entity index] */
    relations: [string, number, number][];
  }[];
}

function nthIndexOf(text: string, needle: string, n: number): number {
  let at = -1;
  for (let i = 0; i <= n; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`demo.json: mention #${n} not found in a demo document`);
  }
  return at;
}

/** Creates the demo project once, on the first launch with an empty workspace. */
export function seedDemoIfFirstLaunch(ctx: ApiContext): void {
  let settings: ReturnType<typeof readSettingsFile>;
  try {
    settings = readSettingsFile(ctx.dataDir);
  } catch (err) {
    // Damaged: it may say the demo was seeded and deleted. None is added, and the file is left
    // for the user to correct (settings:get and every run say why).
    if (err instanceof ApiError) return;
    throw err;
  }
  if (settings.isDemoSeeded) return;
  const db = ctx.ws.write;
  if (listProjects(db).length === 0) {
    const demo = JSON.parse(
      readFileSync(join(ctx.resourcesDir, 'demo', 'demo.json'), 'utf8'),
    ) as DemoFile;
    db.transaction(() => {
      const project = createProject(db, demo.project);
      applySchema(db, project.id, BIOMEDICAL_SCHEMA);
      const dataset = createDataset(db, {
        projectId: project.id,
        ...demo.dataset,
        containsPhi: false,
        isPrivate: false,
      });
      const docs = demo.documents.map((d) => {
        const entities: Entity[] = d.entities.map(([type, mention, nth], i) => {
          const start = nthIndexOf(d.text, mention, nth ?? 0);
          return {
            id: `T${i + 1}`,
            type,
            spans: [{ start, end: start + mention.length }],
            text: mention,
          };
        });
        const relations: Relation[] = d.relations.map(([type, a, b], i) => ({
          id: `R${i + 1}`,
          type,
          arg1: `T${a + 1}`,
          arg2: `T${b + 1}`,
        }));
        return { id: d.id, text: d.text, entities, relations };
      });
      insertDocuments(db, docs, {
        projectId: project.id,
        datasetId: dataset.id,
        format: 'jsonl',
        sourcePath: 'resources/demo/demo.json',
      });
    });
  }
  writeSettingsFile(ctx.dataDir, { ...settings, isDemoSeeded: true });
}
