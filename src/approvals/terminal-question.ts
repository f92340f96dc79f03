import type { Incident } from '../incidents/model';
import type { EvidenceItem } from './evidence';
import { shortHash } from './lines';

/**
 * Enough of each output to judge in a terminal without pushing the question off the screen; the whole
 * output is in the tray and at /ui.
 */
const EVIDENCE_LINES = 6;
const EVIDENCE_COMMANDS = 3;

/**
 * What a headed run's operator is asked in the terminal: the same facts as the card, the
 * lines verbatim (indented, never reflowed), and how to answer. The agent shows it as is.
 */
export function terminalQuestion(incident: Incident, evidence: EvidenceItem[] = []): string {
  const r = incident.approval_request;
  if (!r) return '';
  const block = (lines: string[]) => (lines.length ? lines.map((l) => `    ${l}`).join('\n') : '    (none given)');
  return [
    `APPROVAL NEEDED — ${incident.incident_id} on ${r.device}`,
    '',
    r.summary,
    ...(evidence.length
      ? [
          '',
          'Evidence (what the agents read on the device):',
          ...evidence.slice(-EVIDENCE_COMMANDS).flatMap((e) => [
            `  ${e.command}`,
            ...e.lines.slice(0, EVIDENCE_LINES).map((l) => `    ${l}`),
            ...(e.lines.length > EVIDENCE_LINES ? [`    … ${e.lines.length - EVIDENCE_LINES} more lines (all of it in the tray or at /ui)`] : []),
          ]),
        ]
      : []),
    '',
    `Configuration lines (exactly these are applied, once; lines hash ${shortHash(r.lines_sha256)}):`,
    block(r.commands),
    '',
    'Rollback:',
    block(r.rollback),
    ...(r.artifact_ref ? ['', `From: ${r.artifact_ref}`] : []),
    '',
    `Expires: ${r.expires_at} (then the incident is escalated with no change).`,
    'Type APPROVED or DENIED as your whole message (a reason may follow on the same line). It can also be decided in the tray or on the Webex card.',
  ].join('\n');
}
