// The ordered list of schema migrations. Append only: a shipped migration is never edited.
import type { WriteDb } from '../db.ts';
import { up as init } from './0001-init.ts';
import { up as runStopReason } from './0002-run-stop-reason.ts';
import { up as documentRevision } from './0003-document-revision.ts';
import { up as datasetImporting } from './0004-dataset-importing.ts';
import { up as lineageParentStatus } from './0005-lineage-parent-status.ts';
import { up as searchFolding } from './0006-search-folding.ts';
import { up as interruptedImports } from './0007-interrupted-imports.ts';
import { up as documentListIndexes } from './0008-document-list-indexes.ts';
import { up as projectDeleting } from './0009-project-deleting.ts';
import { up as evaluationBases } from './0010-evaluation-bases.ts';
import { up as importLineageStatus } from './0011-import-lineage-status.ts';
import { up as evaluationReports } from './0012-evaluation-reports.ts';
import { up as searchFoldingUnicode } from './0013-search-folding-unicode.ts';
import { up as searchSymbols } from './0014-search-symbols.ts';

/** One schema step; `version` is the PRAGMA user_version after it runs. */
export interface Migration {
  version: number;
  name: string;
  up: (db: WriteDb) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'init', up: init },
  { version: 2, name: 'run-stop-reason', up: runStopReason },
  { version: 3, name: 'document-revision', up: documentRevision },
  { version: 4, name: 'dataset-importing', up: datasetImporting },
  { version: 5, name: 'lineage-parent-status', up: lineageParentStatus },
  { version: 6, name: 'search-folding', up: searchFolding },
  { version: 7, name: 'interrupted-imports', up: interruptedImports },
  { version: 8, name: 'document-list-indexes', up: documentListIndexes },
  { version: 9, name: 'project-deleting', up: projectDeleting },
  { version: 10, name: 'evaluation-bases', up: evaluationBases },
  { version: 11, name: 'import-lineage-status', up: importLineageStatus },
  { version: 12, name: 'evaluation-reports', up: evaluationReports },
  { version: 13, name: 'search-folding-unicode', up: searchFoldingUnicode },
  { version: 14, name: 'search-symbols', up: searchSymbols },
];
