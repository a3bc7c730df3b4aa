// Hidden text in a DOCX (w:vanish: Word's Font > Hidden, or a character style that sets it): Word
// does not show it, but the DOCX reader reads it with the rest, so an annotator would meet text
// the document's readers never saw. It is kept (nothing of the file is lost silently) and counted
// here for the import's warning. Runs in the body, footnotes and endnotes are counted (the parts
// the import reads), hidden by their own properties, a character style or their paragraph's style.

/** Runs of hidden text with any text in them, and their characters. */
export interface HiddenText {
  runs: number;
  chars: number;
}

const VANISH = /<(?:\w+:)?vanish(?:\s+(?:\w+:)?val\s*=\s*["']([^"']*)["'])?\s*\/?>/;
const FALSE_VALUES = new Set(['false', '0', 'off']);
const STYLE = /<((?:\w+:)?)style(?=[\s>])([^>]*)>([\s\S]*?)<\/\1style>/g;
const STYLE_ID = /(?:\w+:)?styleId\s*=\s*["']([^"']*)["']/;
const RUN_PROPERTIES = /<((?:\w+:)?)rPr(?:\s[^>]*)?>([\s\S]*?)<\/\1rPr>/;
const RUN_STYLE = /<(?:\w+:)?rStyle\s+(?:\w+:)?val\s*=\s*["']([^"']*)["']/;
/** The root elements of the parts whose text is read: the body, footnotes and endnotes. */
const READ_PART = /<(?:\w+:)?(?:body|footnotes|endnotes)[\s>]/;

/** Whether run properties say hidden: true, false (explicitly shown), or undefined (not said). */
function vanishOf(properties: string): boolean | undefined {
  const m = VANISH.exec(properties);
  if (!m) return undefined;
  return !FALSE_VALUES.has((m[1] ?? 'true').trim().toLowerCase());
}

/** The ids of the styles whose run properties hide their text. */
function hiddenStyles(styles: string): Set<string> {
  const ids = new Set<string>();
  for (const m of styles.matchAll(STYLE)) {
    const id = STYLE_ID.exec(m[2] ?? '')?.[1];
    const props = RUN_PROPERTIES.exec(m[3] ?? '')?.[2];
    if (id !== undefined && props !== undefined && vanishOf(props) === true) ids.add(id);
  }
  return ids;
}

/**
 * Paragraphs and runs opening and closing, a run's properties (or a paragraph mark's), a
 * paragraph's style, and text: walked in order, so runs in a text box inside a run are their own.
 */
const TOKEN =
  /<(\/?)(?:\w+:)?(p|r)(?=[\s>/])[^>]*?(\/?)>|<((?:\w+:)?)rPr(?:\s[^>]*)?>([\s\S]*?)<\/\4rPr>|<(?:\w+:)?pStyle\s+(?:\w+:)?val\s*=\s*["']([^"']*)["'][^>]*>|<((?:\w+:)?)t(?:\s[^>]*)?>([^<]*)<\/\7t>/g;

type Open = { kind: 'p'; style?: string } | { kind: 'r'; props: string; chars: number };

/** Counts the hidden runs of one part into `found`; `hiddenIds`: styles that hide their text. */
function countPart(part: string, hiddenIds: ReadonlySet<string>, found: HiddenText): void {
  const open: Open[] = [];
  const close = (kind: 'p' | 'r'): Open | undefined => {
    for (let top = open.pop(); top; top = open.pop()) if (top.kind === kind) return top;
    return undefined;
  };
  for (const m of part.matchAll(TOKEN)) {
    const top = open[open.length - 1];
    if (m[2] !== undefined) {
      if (m[1] === '/') {
        const run = close(m[2] as 'p' | 'r');
        if (run?.kind === 'r' && run.chars > 0 && isHidden(run.props, open, hiddenIds)) {
          found.runs++;
          found.chars += run.chars;
        }
      } else if (m[3] !== '/') open.push(m[2] === 'p' ? { kind: 'p' } : { kind: 'r', props: '', chars: 0 });
    } else if (m[5] !== undefined) {
      if (top?.kind === 'r') top.props = m[5];
    } else if (m[6] !== undefined) {
      if (top?.kind === 'p') top.style = m[6];
    } else if (top?.kind === 'r') top.chars += (m[8] ?? '').replace(/&[^;]*;/g, 'x').length;
  }
}

/** Whether a run is hidden: by its own properties, else its character style, else its paragraph's style. */
function isHidden(props: string, open: readonly Open[], hiddenIds: ReadonlySet<string>): boolean {
  const own = vanishOf(props);
  if (own !== undefined) return own;
  const style = RUN_STYLE.exec(props)?.[1];
  if (style !== undefined && hiddenIds.has(style)) return true;
  const paragraph = open.findLast((o) => o.kind === 'p');
  return paragraph?.kind === 'p' && paragraph.style !== undefined && hiddenIds.has(paragraph.style);
}

/** The hidden text in a DOCX's unpacked parts (see the head of this file). */
export function hiddenText(parts: Record<string, Uint8Array>): HiddenText {
  const found: HiddenText = { runs: 0, chars: 0 };
  const buffers = Object.values(parts).map((data) => Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  if (!buffers.some((b) => b.includes('vanish'))) return found;
  const xml = buffers.filter((b) => b.includes('vanish') || b.includes('Style')).map((b) => b.toString('utf8'));
  const hiddenIds = new Set(xml.filter((x) => /<(?:\w+:)?styles[\s>]/.test(x)).flatMap((x) => [...hiddenStyles(x)]));
  for (const part of xml) if (READ_PART.test(part)) countPart(part, hiddenIds, found);
  return found;
}

/** The import's warning about hidden text, or undefined when there is none. */
export function hiddenTextWarning(hidden: HiddenText): string | undefined {
  if (hidden.runs === 0) return undefined;
  const runs = hidden.runs === 1 ? '1 run' : `${hidden.runs.toLocaleString('en-US')} runs`;
  const chars = hidden.chars === 1 ? '1 character' : `${hidden.chars.toLocaleString('en-US')} characters`;
  return `holds hidden text (${runs}, ${chars}; Word's Font > Hidden), which Word does not show: it is imported with the rest, so the document has text its readers never saw; to leave it out, delete it in Word (show it with Home > Show/Hide) and import the file again`;
}
