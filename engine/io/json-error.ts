// What went wrong in a JSON.parse, without the excerpt of the input V8 puts in its message
// (`Unexpected token 'S', "{"name": SECRET…" is not valid JSON`): the input may be private.

/** The parser's complaint with any quoted excerpt of the input removed. */
export function jsonSyntaxDetail(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '').replace(/\s+/g, ' ').trim();
}
