// Hidden text in a DOCX (w:vanish: Word's Font > Hidden, or a character style that sets it): Word
// does not show it, but the DOCX reader reads it with the rest, so an annotator would meet text
// the document's readers never saw. It is kept (nothing of the file is lost silently) and counted
// here for the import's warning. Runs in the body, footnotes and endnotes are counted (the parts
// the import reads); a paragraph style that hides its paragraphs is not looked at.

/** Runs of hidden text with any text in them, and their characters. */
export interface HiddenText {
  runs: number;
  chars: number;
}

const VANISH = /<(?:\w+:)?vanish(?:\s+(?:\w+:)?val\s*=\s*["']([^"']*)["'])?\s*\/?>/;
const FALSE_VALUES = new Set(['false', '0', 'off']);
const STYLE = /<((?:\w+:)?)style(?=[\s>])([^>]*)>([\s\S]*?)<\/\1style>/g;
const STYLE_ID = /(?:\w+:)?styleId\s*=\s*["']([^"']*)["']/;
const RUN = /<((?:\w+:)?)r(?:\s[^>]*)?(?<!\/)>([\s\S]*?)<\/\1r>/g;
const RUN_PROPERTIES = /<((?:\w+:)?)rPr(?:\s[^>]*)?>([\s\S]*?)<\/\1rPr>/;
const RUN_STYLE = /<(?:\w+:)?rStyle\s+(?:\w+:)?val\s*=\s*["']([^"']*)["']/;
const TEXT = /<((?:\w+:)?)t(?:\s[^>]*)?>([^<]*)<\/\1t>/g;
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

/** The characters of a run's text elements (an entity counted as one). */
function runChars(body: string): number {
  let n = 0;
  for (const m of body.matchAll(TEXT)) n += (m[2] ?? '').replace(/&[^;]*;/g, 'x').length;
  return n;
}

/** The hidden text in a DOCX's unpacked parts (see the head of this file). */
export function hiddenText(parts: Record<string, Uint8Array>): HiddenText {
  const found: HiddenText = { runs: 0, chars: 0 };
  const buffers = Object.values(parts).map((data) => Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  if (!buffers.some((b) => b.includes('vanish'))) return found;
  const xml = buffers.filter((b) => b.includes('vanish') || b.includes('rStyle')).map((b) => b.toString('utf8'));
  const styleIds = new Set(xml.filter((x) => /<(?:\w+:)?styles[\s>]/.test(x)).flatMap((x) => [...hiddenStyles(x)]));
  for (const part of xml) {
    if (!READ_PART.test(part)) continue;
    for (const m of part.matchAll(RUN)) {
      const body = m[2] ?? '';
      const props = RUN_PROPERTIES.exec(body)?.[2] ?? '';
      const style = RUN_STYLE.exec(props)?.[1];
      const hidden = vanishOf(props) ?? (style !== undefined && styleIds.has(style));
      const chars = hidden ? runChars(body) : 0;
      if (chars > 0) {
        found.runs++;
        found.chars += chars;
      }
    }
  }
  return found;
}

/** The import's warning about hidden text, or undefined when there is none. */
export function hiddenTextWarning(hidden: HiddenText): string | undefined {
  if (hidden.runs === 0) return undefined;
  const runs = hidden.runs === 1 ? '1 run' : `${hidden.runs.toLocaleString('en-US')} runs`;
  const chars = hidden.chars === 1 ? '1 character' : `${hidden.chars.toLocaleString('en-US')} characters`;
  return `holds hidden text (${runs}, ${chars}; Word's Font > Hidden), which Word does not show: it is imported with the rest, so the document has text its readers never saw; to leave it out, delete it in Word (show it with Home > Show/Hide) and import the file again`;
}
