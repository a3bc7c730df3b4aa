// Streaming export: documents arrive in batches (read from the store, or held in memory) and each
// format's output is written as it is made, so an export of any size needs the memory of one
// batch. Still all or nothing: a temp file beside the output (brat: a hidden staging folder in
// it) is moved into place only when complete; a failure, a cancel or a target that appeared
// meanwhile (without `overwrite`) leaves nothing behind.

import { basename } from 'node:path';
import { bratExporter } from './brat.ts';
import { biocJsonExporter } from './bioc-json.ts';
import { biocXmlExporter } from './bioc-xml.ts';
import type { StreamExporter } from './common.ts';
import { conllExporter } from './conll.ts';
import { csvExporter } from './csv.ts';
import { checkExportTarget, writeFilesStreamAtomic, writeStreamAtomic } from './export-target.ts';
import { jsonlExporter } from './jsonl.ts';
import { pubtatorExporter } from './pubtator.ts';
import type { ExportFormat, ExportOptions } from './registry.ts';
import type { Document, FormatIssue } from './types.ts';

/** Options of writeExport: those of exportDocuments plus what a format needs up front. */
export interface StreamExportOptions extends ExportOptions {
  /** How many documents will come (CoNLL starts each with -DOCSTART- when there are several). */
  documentCount: number;
  /** CSV: the metadata keys of all the documents, in order (its header; see metadataKeysOf). */
  metadataKeys?: readonly string[];
  /** Stops the export between documents; nothing is left written. */
  signal?: AbortSignal;
}

/** Batches of documents, in export order. */
export type DocumentBatches = AsyncIterable<readonly Document[]> | Iterable<readonly Document[]>;

function singleFileExporter(format: Exclude<ExportFormat, 'brat'>, name: string, opts: StreamExportOptions): StreamExporter {
  switch (format) {
    case 'pubtator':
      return pubtatorExporter({ name });
    case 'bioc-xml':
      return biocXmlExporter({ name });
    case 'bioc-json':
      return biocJsonExporter({ name });
    case 'conll':
      return conllExporter({ ...opts.conll, name, documentCount: opts.documentCount });
    case 'jsonl':
      return jsonlExporter({ name });
    case 'csv':
      return csvExporter({ ...opts.csv, name, metadataKeys: opts.metadataKeys ?? [] });
  }
}

/**
 * Writes `batches` of documents in `format`: to the file `outPath`, or for brat into the folder
 * `outPath` (a .txt/.ann pair per document). The target is checked first (checkExportTarget)
 * and again just before the output is put in place.
 */
export async function writeExport(
  batches: DocumentBatches,
  format: ExportFormat,
  outPath: string,
  opts: StreamExportOptions,
): Promise<{ written: string[]; issues: FormatIssue[] }> {
  const check = (): void =>
    checkExportTarget(outPath, format, {
      ...(opts.overwrite !== undefined && { overwrite: opts.overwrite }),
      ...(opts.dataDir !== undefined && { dataDir: opts.dataDir }),
    });
  check();
  const each = async (use: (doc: Document) => Promise<void>, afterBatch?: () => Promise<void>): Promise<void> => {
    for await (const batch of batches) {
      for (const doc of batch) {
        opts.signal?.throwIfAborted();
        await use(doc);
      }
      await afterBatch?.();
    }
    opts.signal?.throwIfAborted();
  };
  if (format === 'brat') {
    const exporter = bratExporter();
    const written = await writeFilesStreamAtomic(
      outPath,
      (put) =>
        each(async (doc) => {
          for (const f of exporter.add(doc)) await put(f.name, f.parts);
        }),
      check,
    );
    return { written, issues: exporter.finish() };
  }
  const exporter = singleFileExporter(format, basename(outPath), opts);
  let issues: FormatIssue[] = [];
  const produce = async (write: (text: string) => Promise<void>, flush: () => Promise<void>): Promise<void> => {
    await write(exporter.start());
    // A document comes in parts (a long one is never one string); each batch is on disk before the next is read.
    await each(async (doc) => {
      for (const part of exporter.add(doc)) await write(part);
    }, flush);
    const end = exporter.finish();
    issues = end.issues;
    await write(end.tail);
  };
  await writeStreamAtomic(outPath, produce, check);
  return { written: [outPath], issues };
}
