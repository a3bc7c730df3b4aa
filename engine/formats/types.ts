// Annotated-document model shared by importers, exporters, the workspace store and the UI.
// Offsets are UTF-16 code-unit indices into `text` (JavaScript string indices), end-exclusive.

/** A contiguous character range [start, end) in the document text. */
export interface Span {
  start: number;
  end: number;
}

export interface Entity {
  id: string;
  type: string;
  /** One span normally; several for discontinuous mentions (brat `0 5;10 15`). Sorted by start. */
  spans: Span[];
  /** The covered text (spans joined with a single space for discontinuous mentions). */
  text: string;
  /** Normalised concept ids, e.g. MeSH:D003920 (PubTator column 6, BioC infon "identifier"). */
  normIds?: string[];
  /** Model confidence in [0, 1] for predictions; absent for human/imported annotations. */
  score?: number;
  attributes?: Record<string, string>;
}

export interface Relation {
  id: string;
  type: string;
  /** Entity ids, or normalised concept ids when `byConcept` is true (PubTator CID relations). */
  arg1: string;
  arg2: string;
  byConcept?: boolean;
  score?: number;
}

export interface Document {
  /** Stable id within a collection: PMID, file stem, BioC document id… */
  id: string;
  text: string;
  entities: Entity[];
  relations: Relation[];
  /** Passage boundaries (title/abstract, BioC passages) when the format has them. */
  passages?: { type: string; start: number; end: number }[];
  metadata?: Record<string, string>;
  /** How far the document was reviewed in Benchtop: only Benchtop's JSONL carries it (its "benchtop" field). */
  review?: DocumentReview;
}

/** A document's workflow status in a project. */
export type ReviewStatus = 'new' | 'in-progress' | 'annotated' | 'reviewed';

/** A model suggestion nobody reviewed: its entity or relation id, and who suggested it (a model's name). */
export interface Suggestion {
  id: string;
  by?: string;
}

/** Benchtop's review state of a document, beside its annotations (see Document.review). */
export interface DocumentReview {
  status?: ReviewStatus;
  /** Entities and relations of the document that are pending model suggestions, not annotations. */
  suggestions?: { entities: Suggestion[]; relations: Suggestion[] };
  /**
   * Model suggestions a person rejected: not annotations (not in `entities` or `relations`), kept
   * so that the model's next run does not suggest them again. Relations may join kept entities.
   */
  rejected?: { entities: (Entity & { by?: string })[]; relations: (Relation & { by?: string })[] };
}

/** A problem found while reading or writing; never contains document text (may be PHI). */
export interface FormatIssue {
  severity: 'error' | 'warning';
  file: string;
  /** 1-based line number when the format is line-oriented. */
  line?: number;
  message: string;
}

export type FormatName =
  | 'text'
  | 'pubtator'
  | 'brat'
  | 'bioc-xml'
  | 'bioc-json'
  | 'conll'
  | 'jsonl'
  | 'csv'
  | 'pdf'
  | 'docx';
