/** The Markdown pieces the session log and the evidence bundle share, so both escape and lay out alike. */
import { markdownCell } from '../approvals/inert-text';

/**
 * A table cell: a value (an alert's, a device's, the agent's) is text in it and nothing more: a pipe,
 * a line break or a bare CR cannot break the table, markup cannot style or link it.
 */
export const cell = markdownCell;

export const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

/** The fence for content: longer than any backtick run in it, so nothing inside can close it early. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

type Facts = { incident_id: string; alert_def_id: string; device_hostname: string; mode: string; state: string; created_at: string; updated_at: string; warnings: string[] };

/** The incident's facts table: the same rows in the same order in both documents, with each one's own rows between. */
export function incidentFacts(incident: Facts, afterState: [string, string][], afterTimes: [string, string][]): string {
  return table(
    ['Field', 'Value'],
    [
      ['Incident', incident.incident_id],
      ['Alert', incident.alert_def_id],
      ['Device', incident.device_hostname],
      ['Mode', incident.mode],
      ['State', incident.state],
      ...afterState,
      ['Created', incident.created_at],
      ['Last change', incident.updated_at],
      ...afterTimes,
      ['Warnings', incident.warnings.length ? incident.warnings.join('; ') : 'none'],
    ],
  );
}
