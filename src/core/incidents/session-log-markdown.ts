import { AGENT_SUMMARY_LABEL, labelledQuote, outcomeLabel } from '../approvals/inert-text';
import { fenceFor, incidentFacts, table } from './markdown-parts';
import { ROLLBACK_TITLE, rollbackLines } from '../../runbooks/config-preview';
import { CHANGE_WORDS_TITLE, changeWords } from './outcome-words';
import type { Incident, TimelineEntry } from './model';

/** Alert variables whose name says they hold a credential are never written out. */
const SECRET_NAME = /pass(word)?|secret|token|api[-_]?key|authorization|cookie|credential/i;

/** A fenced block that no backtick run in the content can close early. */
function fenced(lines: string[]): string {
  const fence = fenceFor(lines.join('\n'));
  return [fence, ...lines, fence].join('\n');
}

function approvalSection(incident: Incident): string[] {
  const { approval_request: request, approval } = incident;
  if (!request && !approval) return ['No approval was requested.'];
  const out: string[] = [];
  if (request) {
    out.push(
      table(
        ['Request', 'Value'],
        [
          ['Device', request.device],
          ['Requested at', request.requested_at],
          ['Expires at', request.expires_at],
          ...(request.artifact_ref ? [['Artifact', request.artifact_ref]] : []),
        ],
      ),
      '',
      'Commands:',
      '',
      fenced(request.commands.length ? request.commands : ['(none)']),
      '',
      `${ROLLBACK_TITLE}:`,
      '',
      fenced(rollbackLines(request.preview ?? null)),
      '',
      "The agent's proposed rollback (its claim; the relay never runs it):",
      '',
      fenced(request.rollback.length ? request.rollback : ['(none)']),
      '',
      labelledQuote(AGENT_SUMMARY_LABEL, request.summary),
      '',
    );
  }
  if (!approval) {
    out.push('No decision was made.');
    return out;
  }
  const decision = approval.decision === approval.effective ? approval.decision : `${approval.decision} (treated as ${approval.effective})`;
  out.push(
    table(
      ['Decision', 'Value'],
      [
        ['Decision', decision],
        ['By', approval.by],
        ['Channel', approval.channel],
        ['At', approval.at],
        ['Reason', approval.reason ?? '—'],
        ['Agent told at', approval.forwarded_at ?? 'not yet'],
      ],
    ),
  );
  if (approval.effective === 'APPROVED' && approval.commands.length) {
    out.push('', 'Commands approved:', '', fenced(approval.commands));
  }
  return out;
}

/** The session log of one incident, from the relay's own record. */
export function renderSessionLog(incident: Incident, timeline: TimelineEntry[]): string {
  const vars = Object.entries(incident.alert_vars).sort(([a], [b]) => a.localeCompare(b));
  const outcome = incident.outcome;
  return [
    `# ${incident.incident_id}: ${incident.alert_def_id} on ${incident.device_hostname}`,
    '',
    incidentFacts(
      incident,
      [['Agent session', incident.session_id ?? '—']],
      [['Occurrences', `${incident.occurrences} (last seen ${incident.last_seen})`]],
    ),
    '',
    '## Alert variables',
    '',
    vars.length ? table(['Variable', 'Value'], vars.map(([k, v]) => [k, SECRET_NAME.test(k) ? '[redacted]' : v])) : 'None.',
    '',
    '## Approval',
    '',
    ...approvalSection(incident),
    '',
    '## Outcome',
    '',
    ...(outcome ? [`**${outcome.kind}** at ${outcome.at}.`, '', labelledQuote(outcomeLabel(outcome), outcome.summary)] : ['No outcome was reported.']),
    '',
    `**${CHANGE_WORDS_TITLE}:** ${changeWords(incident)}`,
    '',
    '## Timeline',
    '',
    table(['Time (UTC)', 'Event', 'Details'], timeline.map((e) => [e.at, e.type, e.message])),
    '',
  ].join('\n');
}
