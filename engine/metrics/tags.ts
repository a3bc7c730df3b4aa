// Tag sequences → entity spans, reproducing seqeval's default (non-strict) `get_entities`:
// the same end_of_chunk / start_of_chunk rules decode IOB1, IOB2 and BIOES (an I- after O or
// after another type starts a new entity). Also the IOB2 repair used when decoding model output.

/** A typed span [start, end): token indices or character offsets. */
export interface Span {
  type: string;
  start: number;
  end: number;
}

/** Tagging schemes accepted by `extractSpans`. */
export type TagScheme = 'IOB2' | 'IOB1' | 'BIOES';

const PREFIXES: Record<TagScheme, string> = { IOB2: 'BI', IOB1: 'BI', BIOES: 'BIES' };

/** seqeval's (tag, type) split of a valid tag: 'B-X' → ('B', 'X'), bare 'B' → ('B', '_'), 'O' → ('O', '_'). */
function splitTag(chunk: string, scheme: TagScheme, index: number): [string, string] {
  if (chunk === 'O') return ['O', '_'];
  const tag = chunk.charAt(0);
  if (!PREFIXES[scheme].includes(tag) || (chunk.length > 1 && chunk.charAt(1) !== '-')) {
    throw new RangeError(`tag ${JSON.stringify(chunk)} at ${index} is not a valid ${scheme} tag`);
  }
  return [tag, chunk.slice(2) || '_'];
}

/** seqeval `end_of_chunk`: whether the chunk before this token ended at the previous token. */
function endOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (prevTag === 'E' || prevTag === 'S') return true;
  if ((prevTag === 'B' || prevTag === 'I') && (tag === 'B' || tag === 'S' || tag === 'O')) return true;
  return prevTag !== 'O' && prevType !== type;
}

/** seqeval `start_of_chunk`: whether a chunk starts at this token. */
function startOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (tag === 'B' || tag === 'S') return true;
  if ((prevTag === 'E' || prevTag === 'S' || prevTag === 'O') && (tag === 'E' || tag === 'I')) return true;
  return tag !== 'O' && prevType !== type;
}

/**
 * Entity spans (token indices, end exclusive) of one tag sequence, identical to seqeval's default
 * `get_entities`; `scheme` only restricts the allowed prefixes (others throw RangeError).
 */
export function extractSpans(tags: readonly string[], scheme: TagScheme = 'IOB2'): Span[] {
  const spans: Span[] = [];
  let prevTag = 'O';
  let prevType = '';
  let begin = 0;
  for (let i = 0; i <= tags.length; i++) {
    const [tag, type] = i < tags.length ? splitTag(tags[i] ?? 'O', scheme, i) : ['O', '_'];
    if (endOfChunk(prevTag, tag, prevType, type)) spans.push({ type: prevType, start: begin, end: i });
    if (startOfChunk(prevTag, tag, prevType, type)) begin = i;
    prevTag = tag;
    prevType = type;
  }
  return spans;
}

/** IOB2 repair: an I-X not preceded by B-X or I-X becomes B-X (spans from `extractSpans` are unchanged). */
export function repairBio(tags: readonly string[]): string[] {
  const out: string[] = [];
  let prev = 'O';
  for (const tag of tags) {
    const type = tag.slice(2);
    const continues = (prev.startsWith('B') || prev.startsWith('I')) && prev.slice(2) === type;
    out.push(tag.startsWith('I') && (tag.length === 1 || tag.charAt(1) === '-') && !continues ? `B${tag.slice(1)}` : tag);
    prev = tag;
  }
  return out;
}
