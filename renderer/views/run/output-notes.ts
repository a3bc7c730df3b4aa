// What a run over files says about its output format: brat, PubTator and CoNLL have no place for
// the model's confidence scores, so every run written in them (brat is the default) reported
// "warning 26 entity scores dropped" under "1 problem found", as if something had gone wrong.
// Those are said once, as a note with what keeps the scores; the other issues stay problems.
import type { FileIssue } from '../../../engine/api/contract.ts';
import { countOf } from '../../lib/format.ts';

/** The writers' words for a score they could not write (engine/formats: brat, PubTator; "1 entity score dropped"). */
const SCORES = /^(\d+) (entity|relation) scores? dropped$/u;

export function splitScoreNotes(issues: readonly FileIssue[]): { note: string | null; problems: FileIssue[] } {
  const counts = { entity: 0, relation: 0 };
  const problems: FileIssue[] = [];
  for (const issue of issues) {
    const m = issue.severity === 'warning' ? SCORES.exec(issue.message.trim()) : null;
    if (m) counts[m[2] as 'entity' | 'relation'] += Number(m[1]);
    else problems.push(issue);
  }
  const parts = [
    ...(counts.entity > 0 ? [countOf(counts.entity, 'entity score')] : []),
    ...(counts.relation > 0 ? [countOf(counts.relation, 'relation score')] : []),
  ];
  if (parts.length === 0) return { note: null, problems };
  return {
    note: `The chosen format has no place for the model's confidence scores, so ${parts.join(' and ')} ${counts.entity + counts.relation === 1 ? 'was' : 'were'} left out; every entity and relation found is written. JSON Lines and BioC keep the scores.`,
    problems,
  };
}

/**
 * Where a run over files wrote its results, for the summary line: "Written to 1 file" left the
 * user to open "Files written" to learn where (they had typed the path minutes before).
 */
export function writtenWhere(written: readonly string[]): string {
  if (written.length === 0) return 'Nothing was written';
  if (written.length === 1) return `Written to ${written[0]!}`;
  let dir = written[0]!.slice(0, Math.max(written[0]!.lastIndexOf('/'), written[0]!.lastIndexOf('\\')) + 1);
  while (dir !== '' && !written.every((f) => f.startsWith(dir))) {
    const trimmed = dir.slice(0, -1);
    dir = trimmed.slice(0, Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1);
  }
  const files = `Written to ${countOf(written.length, 'file')}`;
  return dir === '' ? files : `${files} in ${dir.length > 1 ? dir.replace(/[\\/]$/u, '') : dir}`;
}
