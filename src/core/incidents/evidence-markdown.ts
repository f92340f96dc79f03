import type { DeviceOutput, EvidenceBundle } from './evidence-bundle';
import type { EvidencePolicy } from './evidence-policy';
import { AGENT_SUMMARY_LABEL, labelledQuote, outcomeLabel } from '../approvals/inert-text';
import { fenceFor, incidentFacts, table } from './markdown-parts';
import { previewLines, ROLLBACK_TITLE } from '../../runbooks/config-preview';
import type { PlanView } from '../approvals/plan-view';

/** A fenced block no backtick run in the content can close early. */
function fenced(text: string, info = ''): string {
  const fence = fenceFor(text);
  return `${fence}${info}\n${text}\n${fence}`;
}

function outputs(title: string, list: DeviceOutput[], prefix: string, hashes: Map<string, string>, empty: string): string[] {
  const out = [`## ${title}`, ''];
  if (list.length === 0) return [...out, empty, ''];
  list.forEach((o, i) => {
    const who = o.by ? ` · run by the relay's ${o.by}` : '';
    out.push(`### ${o.device}# ${o.command}`, '', `At ${o.at}${who} · sha256 \`${hashes.get(`/${prefix}/${i}/output`) ?? ''}\``);
    const notes = [
      ...(o.truncated ? ['this output reached the relay\'s 20,000-character limit: the device may have printed more'] : []),
      ...(o.redactions > 0 ? [`${o.redactions} secret value(s) redacted`] : []),
    ];
    if (notes.length) out.push('', `_${notes.join('; ')}_`);
    out.push('', fenced(o.output === '' ? '(no output)' : o.output), '');
  });
  return out;
}

/** A plan by device, as every channel showed it: each device's lines, its dry run and the relay's rollback of it. */
function planSection(plan: PlanView): string[] {
  const out = [`Plan over ${plan.devices.map((d) => `\`${d.device}\``).join(', ')}, applied on every device or on none (the hash above is over every device's lines):`, ''];
  plan.devices.forEach((d, i) => {
    out.push(
      `### Device ${i + 1} of ${plan.devices.length}: \`${d.device}\``,
      '',
      'Lines:',
      '',
      fenced(d.lines.join('\n') || '(none)'),
      '',
      'Preview (dry run):',
      '',
      fenced(previewLines(d.preview).join('\n')),
      '',
      `Rollback of this device (computed by the relay from the configuration before):`,
      '',
      fenced(d.rollback.join('\n')),
      '',
    );
  });
  return out;
}

function previewText(preview: unknown): string {
  if (typeof preview === 'string') return preview;
  return JSON.stringify(preview, null, 2);
}

/**
 * The bundle as a person reads it (a change record, a ticket). Everything in it comes from the
 * JSON bundle, and the manifest at the end carries the same hashes, so the two can be checked
 * against each other.
 */
export function renderEvidenceMarkdown(bundle: EvidenceBundle): string {
  const { change, manifest } = bundle;
  const hashes = new Map(manifest.parts.map((p) => [p.path, p.sha256]));
  return [
    ...incidentSection(bundle),
    ...requestSection(bundle.approval_request),
    ...decisionSection(bundle.decision),
    ...(bundle.policy ? policySection(bundle.policy) : []),
    ...outputs('Before the change', bundle.before, 'before', hashes, 'No show command ran before the change.'),
    ...outputs('After the change', bundle.after, 'after', hashes, change.result === 'not_applied' ? 'No change was applied.' : 'No show command ran after the change.'),
    ...changeSection(change),
    ...manifestSection(manifest),
  ].join('\n');
}

/** The title line and the incident's facts, with the run's outcome quoted and labelled. */
function incidentSection(bundle: EvidenceBundle): string[] {
  const { incident, change } = bundle;
  return [
    `# Evidence: ${incident.incident_id}`,
    '',
    `${incident.alert_def_id} on ${incident.device_hostname} · exported ${bundle.generated_at} · ${bundle.format}`,
    '',
    '## Incident',
    '',
    incidentFacts(
      incident,
      [['Severity', incident.severity ?? '—']],
      [
        ['Outcome', incident.outcome ? `${incident.outcome.kind} at ${incident.outcome.at}` : 'none reported'],
        // How the change ended is the relay's record (Change outcome below), beside whatever the summary says.
        ["Configuration change (the relay's record)", `${change.result}: ${change.summary}`],
      ],
    ),
    '',
    ...(incident.outcome ? [labelledQuote(outcomeLabel(incident.outcome), incident.outcome.summary), ''] : []),
  ];
}

/** The approval request: its fields, the lines (by device for a plan), the relay's rollback, the preview and the agent's summary (quoted). */
function requestSection(request: EvidenceBundle['approval_request']): string[] {
  const out = ['## Approval request', ''];
  if (!request) return [...out, 'No approval was requested.', ''];
  out.push(
    table(
      ['Field', 'Value'],
      [
        ['Request id', request.request_id || '—'],
        request.plan ? ['Plan over', request.plan.devices.map((d) => d.device).join(', ')] : ['Device', request.device],
        ['Requested at', request.requested_at],
        ['Expires at', request.expires_at],
        ['Status', request.status],
        ['Lines sha256', `${request.lines_sha256 || '—'}${request.lines_sha256_matches ? ' (matches the lines)' : ' (does NOT match the lines below)'}`],
        ...(request.artifact_ref ? [['Artifact', request.artifact_ref]] : []),
      ],
    ),
    '',
    ...(request.plan ? planSection(request.plan) : singleDeviceLines(request)),
    "The agent's proposed rollback (its claim; the relay never runs it):",
    '',
    fenced(request.rollback.join('\n') || '(none)'),
    '',
    labelledQuote(AGENT_SUMMARY_LABEL, request.summary),
    '',
  );
  return out;
}

/** One device's lines, the relay's rollback of them and the preview. */
function singleDeviceLines(request: NonNullable<EvidenceBundle['approval_request']>): string[] {
  return [
    `Lines${request.lines_redacted ? ' (a secret in a line is redacted; the hash is of the lines as approved)' : ''}:`,
    '',
    fenced(request.lines.join('\n') || '(none)'),
    '',
    `${ROLLBACK_TITLE}:`,
    '',
    fenced(request.relay_rollback.join('\n')),
    '',
    'Preview (dry run):',
    '',
    request.preview === null ? 'None was recorded with the request.' : fenced(previewText(request.preview)),
    '',
  ];
}

/** The person's decision on the request. */
function decisionSection(decision: EvidenceBundle['decision']): string[] {
  return [
    '## Decision',
    '',
    decision
      ? table(
          ['Field', 'Value'],
          [
            ['Decision', decision.decision === decision.effective ? decision.decision : `${decision.decision} (treated as ${decision.effective})`],
            ['By', decision.by],
            ['Channel', decision.channel],
            ['At', decision.at],
            ['Request id', decision.request_id || '—'],
            ['Reason', decision.reason ?? '—'],
          ],
        )
      : 'No decision was made.',
    '',
  ];
}

/** How the change ended, by the relay's record: lines, the device's answer, its events and the no-overwrite checks. */
function changeSection(change: EvidenceBundle['change']): string[] {
  const out: string[] = [];
  out.push(
    '## Change outcome',
    '',
    `**${change.result}**: ${change.summary}`,
    '',
    table(
      ['Field', 'Value'],
      [
        ['Device', change.device ?? '—'],
        ['Applied at', change.applied_at ?? '—'],
        ['Change id', change.change_id ?? '—'],
        ['Deadline', change.deadline ?? '—'],
        ['By', change.by ?? '—'],
        ['Reason', change.reason ?? '—'],
      ],
    ),
    '',
  );
  if (change.applied_lines.length) out.push('Applied lines:', '', fenced(change.applied_lines.join('\n')), '');
  if (change.device_answer) out.push("The device's answer:", '', fenced(change.device_answer), '');
  if (change.events.length) out.push(table(['Time (UTC)', 'Event', 'Details'], change.events.map((e) => [e.at, e.type, e.message])), '');
  if (change.fingerprint_checks.length) {
    out.push(
      'Device configuration checked against the approved preview before the change (no-overwrite):',
      '',
      table(['Time (UTC)', 'Device', 'Result', 'Previewed sha256', 'Read sha256'], change.fingerprint_checks.map((c) => [c.at, c.device, c.result, c.before_sha256, c.now_sha256 ?? '—'])),
      '',
    );
    for (const c of change.fingerprint_checks.filter((x) => x.changed.length)) out.push(`What changed on ${c.device} (${c.at}):`, '', fenced(c.changed.join('\n')), '');
  }
  return out;
}

/** The manifest: every part's hash, and the content hash of the JSON bundle. */
function manifestSection(manifest: EvidenceBundle['manifest']): string[] {
  return [
    '## Manifest',
    '',
    manifest.encoding,
    '',
    table(['Part', 'Kind', 'sha256'], manifest.parts.map((p) => [p.path, p.kind, p.sha256])),
    '',
    `Content sha256: \`${manifest.content_sha256}\` (the JSON bundle, \`?format=json\`, without its manifest).`,
    '',
  ];
}

/** The change policy's verdict and rule, the policy file's hash, and who approved where and when. */
function policySection(p: EvidencePolicy): string[] {
  return [
    '## Change policy',
    '',
    table(['Field', 'Value'], [['Verdict', p.verdict], ['Rule', p.rule], ['Reason', p.reason], ['Policy sha256', p.policy_sha256 || '—'], ...(p.needed !== null ? [['Needed', `${p.needed} from ${p.groups.join(', ')}`]] : [])]),
    '',
    ...(p.approvers.length ? [table(['Approver', 'Channel', 'At'], p.approvers.map((a) => [a.by, a.channel, a.at])), ''] : []),
  ];
}
