// The DOCX reader's step of the DOCX import (docx.ts): mammoth's document tree of a checked,
// stored zip made raw text (paragraphs separated by blank lines, as its extractRawText gives
// them, but a line break kept as a line break, and footnotes and endnotes after the body).
// Headers and footers are not read: letterhead, page numbers and the patient's name on every
// page, not what the document says. Conversion warnings are only counted: mammoth's
// messages may quote document content. This module is also the entry of the worker thread a
// large DOCX is read in (engine/runtime/jobs.ts), so it imports nothing but the reader.

import { pathToFileURL } from 'node:url';
import mammoth from 'mammoth';

/** What the reader gives back: only the text and how many warnings, never a message. */
export interface DocxText {
  text: string;
  warnings: number;
}

/** An element of mammoth's document tree: the fields the raw text needs. */
interface DocxElement {
  type: string;
  value?: string;
  children?: DocxElement[];
  /** A note (footnote, endnote): its paragraphs. */
  body?: DocxElement[];
  /** The document: its footnotes and endnotes, found by a reference to one. */
  notes?: { resolve(reference: DocxElement): DocxElement | null };
}

/**
 * The text of mammoth's tree as extractRawText makes it, with a line, page or column break as
 * "\n", and a footnote or endnote reference as "[n]" (numbered in order of reference, as Word
 * shows them); `refs` collects the references.
 */
function rawText(element: DocxElement, refs: DocxElement[]): string {
  switch (element.type) {
    case 'text':
      return element.value ?? '';
    case 'tab':
      return '\t';
    case 'break':
      return '\n';
    case 'noteReference':
      return `[${refs.push(element)}]`;
    default: {
      const inner = (element.children ?? []).map((child) => rawText(child, refs)).join('');
      return element.type === 'paragraph' ? `${inner}\n\n` : inner;
    }
  }
}

/**
 * The document's text: the body, then its footnotes and endnotes ("[n] " and the note, in order
 * of reference; extractRawText left them out, and a letter's notes are part of what it says). A
 * note's own references are numbered on and follow it.
 */
function documentText(document: DocxElement): string {
  const refs: DocxElement[] = [];
  let text = rawText(document, refs);
  for (let n = 0; n < refs.length; n++) {
    const ref = refs[n];
    const note = ref ? document.notes?.resolve(ref) : null;
    const body = (note?.body ?? []).map((child) => rawText(child, refs)).join('');
    text += `[${n + 1}] ${body.trimStart() || '\n\n'}`;
  }
  return text;
}

/** The raw text of a stored DOCX zip, or null when the reader cannot read it (damaged). */
export async function readDocxText(zip: Uint8Array): Promise<DocxText | null> {
  try {
    // The public way to the tree: convertToHtml hands it to transformDocument, which keeps it and
    // gives back an empty document, so no HTML is made.
    let tree: DocxElement | undefined;
    const { messages } = await mammoth.convertToHtml(
      { buffer: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength) },
      {
        transformDocument: (document: DocxElement) => {
          tree = document;
          return { ...document, children: [] };
        },
      },
    );
    return tree ? { text: documentText(tree), warnings: messages.length } : null;
  } catch {
    return null;
  }
}

/** Worker side (called by engine/runtime/worker-boot.mjs): reads the zip it was handed. */
export function run(args: { zip: Uint8Array }): Promise<DocxText | null> {
  return readDocxText(args.zip);
}

/** This module as a worker's entry. */
export function docxReaderEntry(): URL {
  // NOTE: in the Electron bundle this module is a separate entry (docx-reader.js) located by
  // BENCHTOP_DOCX_READER; import.meta.url would point into the engine host's bundle.
  const bundled = process.env['BENCHTOP_DOCX_READER'];
  return bundled ? pathToFileURL(bundled) : new URL(import.meta.url);
}
