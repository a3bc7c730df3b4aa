// Paths as people paste them: Windows' "Copy as path" wraps them in quotes, and some file
// managers copy a file:// address. Both are turned into the plain path the engine expects.

const QUOTES = new Set(['"', "'"]);

/** The path inside `typed` when it is quoted or a file:// address; otherwise `typed` unchanged. */
export function pastedPath(typed: string): string {
  const t = typed.trim();
  if (t.length > 2 && QUOTES.has(t[0]!) && t.at(-1) === t[0] && !t.slice(1, -1).includes(t[0]!))
    return t.slice(1, -1);
  const url = /^file:\/\/(localhost)?(\/[^?#]*)$/i.exec(t);
  if (url) {
    try {
      const path = decodeURIComponent(url[2]!);
      // file:///C:/Users/me → C:/Users/me (a Windows drive), file:///home/me → /home/me.
      return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
    } catch {
      return typed; // a malformed %-escape: the engine names what is wrong with it
    }
  }
  return typed;
}
