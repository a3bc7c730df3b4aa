// What the Import panel says of the path typed, from the engine's look at it
// (documents:probe-path): what is there and which formats, in plain words with the format's
// name in brackets, and the wording of the one question that depends on the files (CoNLL files
// without -DOCSTART- lines).
import type { ImportFormat, ImportPathProbe } from '../../../engine/api/contract.ts';
import { formatNumber } from '../format.ts';

/** How long typing must pause before the path is looked at. */
export const PROBE_DELAY_MS = 300;

/** Each format in plain words: one file, several files. */
const FORMAT_WORDS: Record<ImportFormat, [string, string]> = {
  text: ['plain-text note', 'plain-text notes'],
  brat: ['annotated note (brat: a .txt with its .ann)', 'annotated notes (brat: a .txt with its .ann)'],
  pubtator: ['file of abstracts with annotations (PubTator)', 'files of abstracts with annotations (PubTator)'],
  'bioc-xml': ['file of documents with annotations (BioC XML)', 'files of documents with annotations (BioC XML)'],
  'bioc-json': ['file of documents with annotations (BioC JSON)', 'files of documents with annotations (BioC JSON)'],
  conll: ['file of labelled words, one a line (CoNLL)', 'files of labelled words, one a line (CoNLL)'],
  jsonl: ['file of records, one a line (JSON Lines)', 'files of records, one a line (JSON Lines)'],
  csv: ['table, a document a row (CSV or TSV)', 'tables, a document a row (CSV or TSV)'],
  pdf: ['PDF', 'PDFs'],
  docx: ['Word document (.docx)', 'Word documents (.docx)'],
};

const ORDER = Object.keys(FORMAT_WORDS) as ImportFormat[];

/** "3 plain-text notes" */
function countOf(n: number, format: ImportFormat): string {
  const [one, many] = FORMAT_WORDS[format];
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** What the panel says of a path something can be imported from (`problem` says the rest). */
export function probeSummary(p: ImportPathProbe): string {
  const found = ORDER.filter((f) => (p.formats[f] ?? 0) > 0).map((f) => countOf(p.formats[f] ?? 0, f));
  if (p.kind === 'file') {
    const format = ORDER.find((f) => p.formats[f]) ?? 'text';
    // A file of many notes, one a line, is still one document: said before it is imported.
    return `A ${FORMAT_WORDS[format][0]}${format === 'text' ? ', read as one document' : ''}.`;
  }
  const files = p.isPartial ? `more than ${formatNumber(p.files)} files` : `${formatNumber(p.files)} file${p.files === 1 ? '' : 's'}`;
  const some = p.filesLookedAt < p.files ? ` (of the first ${formatNumber(p.filesLookedAt)})` : '';
  // Its first sentence: "a .md file is not read" (the import's report lists each file with what to do).
  const why = p.unsupportedExample ? `${p.unsupportedExample.file} (${p.unsupportedExample.reason.split('. ')[0]})` : '';
  const unread = why ? `${formatNumber(p.unsupported)} of a kind Benchtop does not read, such as ${why}` : '';
  // Empty notes and binary files named .txt: the import skips them, so they are not notes here.
  const skip = p.skippedExample ? `${formatNumber(p.skipped)} that will be skipped, such as ${p.skippedExample.file} (${p.skippedExample.reason})` : '';
  const parts = [...found, ...(unread ? [unread] : []), ...(skip ? [skip] : [])];
  if (found.length === 0 && p.unsupportedExample && !skip)
    return `A folder of ${files}${some}, none of a kind Benchtop reads, such as ${why}.`;
  if (parts.length === 0) return `A folder of ${files}.`;
  return `A folder of ${files}${some}: ${parts.join('; ')}.`;
}

/** The question asked of CoNLL files without -DOCSTART- lines, naming the file (or how many). */
export function conllQuestion(p: ImportPathProbe): string {
  const unmarked = 'no lines marking where one document ends and the next begins (-DOCSTART- lines)';
  if (p.kind === 'file') return `This file of labelled words (CoNLL) has ${unmarked}. How should it become documents?`;
  const which = p.conllWithoutStarts === 1 ? `One file, ${p.conllExample ?? ''},` : `${formatNumber(p.conllWithoutStarts)} files, such as ${p.conllExample ?? ''},`;
  return `${which} of labelled words (CoNLL) ${p.conllWithoutStarts === 1 ? 'has' : 'have'} ${unmarked}. How should ${p.conllWithoutStarts === 1 ? 'it' : 'each'} become documents?`;
}

/**
 * The dataset name an import of `path` gets when none is typed: the file or folder's name without
 * its extension, as the engine names it (numbered there when the project has one by that name).
 */
export function defaultDatasetName(path: string): string {
  const name = path.trim().replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
  return name.replace(/\.[^.]+$/, '').trim();
}
