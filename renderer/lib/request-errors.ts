// The engine refuses a malformed request as "Invalid request: args.entityType.name must be at
// most 200 characters." That names a field of the API, not of the screen: this says it in the
// words of the form ("The entity type's name can have at most 200 characters.").

const FIELDS: Record<string, string> = {
  name: 'The name',
  description: 'The description',
  datasetName: 'The dataset name',
  'entityType.name': 'The entity type’s name',
  'entityType.description': 'The entity type’s description',
  'relationType.name': 'The relation type’s name',
  'relationType.description': 'The relation type’s description',
  newName: 'The new name',
  path: 'The path',
  inputPath: 'The path to read',
  outPath: 'The path to write',
};

/** `message` in the screen's words when it is a request refusal about a known field; else as is. */
export function readableRequestError(message: string): string {
  const m = /^Invalid request: args\.([\w.]+) (must .+)\.$/.exec(message);
  const field = m ? FIELDS[m[1]!] : undefined;
  if (!m || field === undefined) return message;
  const rule = m[2]!;
  const most = /^must be at most ([\d,]+) characters$/.exec(rule);
  if (most) return `${field} can have at most ${most[1]} characters; shorten it.`;
  if (rule === 'must be filled in') return `${field} cannot be empty; type one.`;
  return `${field} ${rule}.`;
}
