import type { Incident } from '../incidents/model';
import type { EvidenceItem } from './evidence';
import { shortHash } from './lines';
import { requestRequirementLine } from './standing';
import { visibleLines } from './visible-text';
import { AGENT_SUMMARY_LABEL, quotedPlain } from './inert-text';
import { previewLines, ROLLBACK_TITLE, rollbackLines } from '../../runbooks/config-preview';
import { planViewOf, planViewText } from './plan-view';

/**
 * Enough of each output to judge in a terminal without pushing the question off the screen; the whole
 * output is in the tray and at /ui.
 */
const EVIDENCE_LINES = 5;
const EVIDENCE_COMMANDS = 3;

/**
 * What a headed run's operator is asked in the terminal: the same facts as the card, the
 * lines verbatim (indented, never reflowed, odd characters escaped), and how to answer. The
 * relay writes it into the operator's session itself; the model never retells it.
 */
export function terminalQuestion(incident: Incident, evidence: EvidenceItem[] = []): string {
  const r = incident.approval_request;
  if (!r) return '';
  const plan = planViewOf(r);
  const block = (lines: string[]) => (lines.length ? visibleLines(lines).lines.map((l) => `    ${l}`).join('\n') : '    (none given)');
  const warning = visibleLines(r.commands).warning;
  const singleDevice = () => [
    `Configuration lines (exactly these are applied, once, on ${r.device}; lines hash ${shortHash(r.lines_sha256)}):`,
    block(r.commands),
    ...(warning ? ['', warning] : []),
    '',
    // Beside the lines: what they would do to the live device (its dry run), or that nobody could tell.
    ...visibleLines(previewLines(r.preview ?? null)).lines.map((l, i) => (i === 0 ? l : `    ${l}`)),
    '',
    // The relay's own rollback, from the configuration before; the agent's proposed one is not it.
    `${ROLLBACK_TITLE}:`,
    ...visibleLines(rollbackLines(r.preview ?? null)).lines.map((l, i) => (i === 0 ? `  ${l}` : `    ${l}`)),
    '',
  ];
  return [
    `APPROVAL NEEDED — ${incident.incident_id} ${plan ? `plan over ${plan.devices.map((d) => d.device).join(', ')}` : `on ${r.device}`} — request ${r.request_id}`,
    '',
    // The change policy's rule and how far its approvals are, from the relay's own record.
    ...(requestRequirementLine(r) ? [`Policy: ${requestRequirementLine(r)}`, ''] : []),
    ...(plan ? [...planViewText(plan), ''] : singleDevice()),
    `${AGENT_SUMMARY_LABEL}:`,
    quotedPlain(r.summary),
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
    ...(r.artifact_ref ? ['', `From: ${r.artifact_ref}`] : []),
    '',
    `Expires: ${r.expires_at} (then the incident is escalated with no change).`,
    'Type APPROVED or DENIED as your whole message; a reason may follow after ":" or " - " (DENIED: not in the change window). Anything else is not a decision. It can also be decided in the tray, at /ui or on the card.',
  ].join('\n');
}
