// Plain-text importer: the whole file is one Document with no annotations. The text is kept
// exactly as decoded (CRLF included) so that later annotations' offsets stay faithful.

import type { Document } from './types.ts';
import type { ImportResult } from './common.ts';
import { fileStem, finishDocument } from './common.ts';

/** Imports a plain-text file as one document (id: the file stem unless given). */
export function importText(text: string, file: string, id: string = fileStem(file)): ImportResult {
  const doc: Document = { id, text, entities: [], relations: [] };
  const result: ImportResult = { documents: [doc], issues: [] };
  finishDocument(doc, [], { file, issues: result.issues });
  return result;
}
