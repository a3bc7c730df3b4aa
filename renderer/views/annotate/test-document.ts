// A short annotated document and the biomedical schema, shared by the editor's unit tests.
import type { DocumentDetail, LabelSchema } from '../../../engine/api/contract.ts';

export const TEXT = 'Patients with BRCA1-associated breast cancer received olaparib daily.';
export const at = (s: string, n = 0): number => {
  let i = -1;
  for (let k = 0; k <= n; k++) i = TEXT.indexOf(s, i + 1);
  return i;
};

export const SCHEMA: LabelSchema = {
  entityTypes: [
    { name: 'Disease', color: '#d6336c', shortcut: 'd' },
    { name: 'Chemical', color: '#2b8a3e', shortcut: 'c' },
    { name: 'Gene', color: '#1c7ed6', shortcut: 'g' },
  ],
  relationTypes: [
    {
      name: 'treats',
      arg1Types: ['Chemical'],
      arg2Types: ['Disease'],
      color: '#2b8a3e',
      symmetric: false,
    },
    {
      name: 'associated_with',
      arg1Types: ['Gene'],
      arg2Types: ['Disease'],
      color: '#7048e8',
      symmetric: false,
    },
  ],
};

export function detail(): DocumentDetail {
  return {
    summary: {
      id: 7,
      projectId: 1,
      datasetId: 1,
      externalId: 'd7',
      status: 'new',
      format: 'text',
      textLength: TEXT.length,
      annotationCount: 0,
      suggestionCount: 0,
      updatedAt: '',
      revision: 3,
    },
    text: TEXT,
    passages: [],
    entities: [
      {
        key: 'T1',
        type: 'Disease',
        spans: [{ start: at('breast'), end: at('cancer') + 6 }],
        text: 'breast cancer',
        origin: 'imported',
        status: 'final',
      },
      {
        key: 'T4',
        type: 'Chemical',
        spans: [{ start: at('olaparib'), end: at('olaparib') + 8 }],
        text: 'olaparib',
        origin: 'model',
        status: 'suggested',
      },
    ],
    relations: [],
    metadata: [],
  };
}

/** The document with a model's suggestion R1: olaparib (T4) treats breast cancer (T1). */
export function detailWithSuggestedTreats(): DocumentDetail {
  const d = detail();
  d.relations.push({ key: 'R1', type: 'treats', arg1: 'T4', arg2: 'T1', origin: 'model', status: 'suggested' });
  return d;
}
