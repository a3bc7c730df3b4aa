// Model cards (README.md of a model folder) as HTML. A card may come from an imported, untrusted
// folder, so two layers: `marked` renders Markdown with any raw HTML in it escaped (shown as
// text; a card needs none, and parsing it would only make Chromium report the CSP blocking its
// inline handlers), and DOMPurify then removes everything that could load or navigate (images,
// media, links' targets, styles): a card can neither reach the network nor leave the app.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const marked = new Marked({ gfm: true, async: false, renderer: { html: ({ text }) => escapeHtml(text) } });

const FORBID_TAGS = ['img', 'picture', 'source', 'video', 'audio', 'iframe', 'object', 'embed', 'svg', 'math', 'style', 'form', 'input', 'button', 'textarea', 'select'];
const FORBID_ATTR = ['href', 'src', 'srcset', 'style', 'action', 'formaction', 'xlink:href', 'background', 'poster'];

/** Safe HTML for a Markdown model card (GitHub-flavoured: tables, lists, code). */
export function markdownToHtml(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return DOMPurify.sanitize(html, { FORBID_TAGS, FORBID_ATTR });
}
