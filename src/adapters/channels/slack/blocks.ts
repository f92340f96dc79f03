import type { Approval, Incident } from '../../../core/incidents/model';
import type { ApprovalAsk } from '../../../core/approvals/operator-channel';
import { visibleLines } from '../../../core/approvals/visible-text';
import { AGENT_SUMMARY_LABEL, visibleText } from '../../../core/approvals/inert-text';
import { say } from './wording';
import { previewLines, ROLLBACK_TITLE, rollbackLines } from '../../../runbooks/config-preview';
import type { ButtonValue } from './schemas';

export const APPROVE_ACTION = 'fault_approval_approve';
export const DENY_ACTION = 'fault_approval_deny';
type Block = Record<string, unknown>;

// Slack's limits: 3000 characters per section text, 50 blocks per message.
const SECTION_MAX = 2900;
const MAX_LINES_SHOWN = 40;

/** Slack mrkdwn control characters: even inside a code block `<` and `&` would be read as markup. */
export const escapeMrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text } });

/**
 * Text the relay did not write, under the relay's label: `plain_text`, which Slack renders with no
 * markup at all, so nothing in it can be bold, a code block, a link or a mention.
 */
export function quotedBlocks(label: string, text: string): Block[] {
  // `&`, `<` and `>` are still entities to Slack in plain text: escaped, they show as themselves.
  const shown = escapeMrkdwn(visibleText(text));
  const cut = shown.length > SECTION_MAX ? `${shown.slice(0, SECTION_MAX - 60)} … (cut here: the whole text is in the incident's timeline)` : shown;
  return [
    { type: 'divider' },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `*${escapeMrkdwn(label)}*` }] },
    { type: 'section', text: { type: 'plain_text', text: cut || ' ', emoji: false } },
  ];
}

/**
 * Lines verbatim in code blocks, split across sections to fit Slack's size: one line is never cut.
 * A line holding ``` would end the fence early, so the fence's backticks are broken with a zero-width
 * joiner only in what is shown (visible-text marks such lines for the reader).
 */
function codeBlocks(lines: string[]): Block[] {
  const out: Block[] = [];
  let chunk: string[] = [];
  const flush = () => {
    if (chunk.length) out.push(section('```\n' + chunk.join('\n') + '\n```'));
    chunk = [];
  };
  for (const raw of lines) {
    const line = escapeMrkdwn(raw.replace(/```/g, '`\u200d`\u200d`')) || ' ';
    if ([...chunk, line].join('\n').length > SECTION_MAX) flush();
    chunk.push(line);
  }
  flush();
  return out;
}

/** The approval message: the lines first, as the device receives them, then the hash, the agent's summary (labelled) and the value buttons. */
export function approvalBlocks(a: ApprovalAsk): { text: string; blocks: Block[] } {
  const fits = messageBlocks(a, linesComplete(a));
  // Slack takes 50 blocks: when the lines do not fit, the message is cut before its summary and buttons, and can only deny.
  const cut = () => {
    const body = messageBlocks(a, false).filter((b) => b !== TOO_MANY);
    return [...body.slice(0, 50 - TAIL_BLOCKS - 1), TOO_MANY, ...body.slice(-TAIL_BLOCKS)];
  };
  const blocks = fits.length <= 50 ? fits : cut();
  const what = a.plan ? `a plan on ${a.plan.map((e) => e.device).join(', ')}` : a.device;
  return { text: `Approval needed for ${a.incident_id} on ${what} (request ${a.request_id}, lines ${a.lines_sha256.slice(0, 12)})`, blocks };
}

const TOO_MANY = section('Too many lines to show them all here: approve in the tray, where every line is shown. You can deny here.');
/** The agent's summary (a divider, its label, its text) and the buttons: always the end of the message. */
const TAIL_BLOCKS = 4;

const linesComplete = (a: ApprovalAsk) => (a.plan ? a.plan.every((e) => e.commands.length <= MAX_LINES_SHOWN) : a.commands.length <= MAX_LINES_SHOWN);

function messageBlocks(a: ApprovalAsk, complete: boolean): Block[] {
  const value = (decision: ButtonValue['decision']) =>
    JSON.stringify({ incident_id: a.incident_id, request_id: a.request_id, decision, lines: a.lines_sha256.slice(0, 12) } satisfies ButtonValue);
  return [
    section(a.plan ? `*Approval needed*: one change plan on ${a.plan.length} devices, applied to all or none` : `*Approval needed*: configuration change on \`${escapeMrkdwn(a.device)}\``),
    {
      type: 'section',
      fields: [
        ['Incident', a.incident_id],
        ['Request', a.request_id],
        ['Alert', a.alert_def_id],
        ...(a.plan ? [['Devices', a.plan.map((e) => e.device).join(', ')]] : []),
        [a.plan ? 'Plan hash' : 'Lines hash', a.lines_sha256.slice(0, 12)],
        ['Expires', a.expires_at],
        ...(a.policy ? [['Policy', a.policy]] : []),
      ].map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${escapeMrkdwn(v!)}` })),
    },
    // What a person approves is what is applied: with lines left out, this message can only deny.
    ...(a.plan ? [...a.plan.flatMap((entry, i) => deviceSections(entry, i, a.plan!.length)), ...(complete ? [] : [TOO_MANY])] : changeSections('Commands to apply, exactly these, once', a.commands, a.preview ?? null, complete)),
    // Last before the buttons, below everything the relay says: the agent's words, as plain text.
    ...quotedBlocks(AGENT_SUMMARY_LABEL, a.summary),
    {
      type: 'actions',
      block_id: `fault_approval:${a.request_id}`,
      // Value buttons only: a URL button or link is "clicked" by unfurlers and prefetchers.
      elements: [
        ...(complete ? [{ type: 'button', action_id: APPROVE_ACTION, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value: value('APPROVED') }] : []),
        { type: 'button', action_id: DENY_ACTION, style: 'danger', text: { type: 'plain_text', text: 'Deny' }, value: value('DENIED') },
      ],
    },
  ];
}

/** One change's lines, what they would change on the live device (the dry run), and the relay's own way back. */
function changeSections(title: string, lines: readonly string[], preview: ApprovalAsk['preview'], complete = true): Block[] {
  const commands = visibleLines(lines);
  const shown = commands.lines.slice(0, MAX_LINES_SHOWN);
  return [
    section(`*${escapeMrkdwn(title)}*`),
    ...codeBlocks(shown),
    ...(commands.lines.length > shown.length ? [section(`… and ${commands.lines.length - shown.length} more`)] : []),
    ...(commands.warning ? [section(`:warning: *${escapeMrkdwn(commands.warning)}*`)] : []),
    ...previewSections(preview ?? null),
    ...(complete ? [] : [TOO_MANY]),
    // The relay's own rollback, from the configuration before: the agent's proposed one is never shown as it.
    ...rollbackSections(preview ?? null),
  ];
}

/** A plan's device, from the plan the core keeps (never from the `! device` headings of the flattened lines). */
function deviceSections(entry: NonNullable<ApprovalAsk['plan']>[number], i: number, of: number): Block[] {
  return [{ type: 'divider' }, section(`*Device ${i + 1} of ${of}: \`${escapeMrkdwn(entry.device)}\`*`), ...changeSections(`Lines for ${entry.device}, exactly these, once`, entry.commands, entry.preview)];
}

/** Beside the lines: what they would change on the live device (the dry run), or that there is no preview. */
function rollbackSections(preview: ApprovalAsk['preview']): Block[] {
  const [how = '', ...lines] = visibleLines(rollbackLines(preview)).lines;
  return [section(`*${ROLLBACK_TITLE}*`), section(`_${escapeMrkdwn(how)}_`), ...codeBlocks(lines.slice(0, MAX_LINES_SHOWN))];
}

function previewSections(preview: ApprovalAsk['preview']): Block[] {
  const [head = '', ...rest] = visibleLines(previewLines(preview)).lines;
  const shown = rest.slice(0, MAX_LINES_SHOWN);
  return [
    section(rest.length ? `*${escapeMrkdwn(head)}*` : `_${escapeMrkdwn(head)}_`),
    ...codeBlocks(shown),
    ...(rest.length > shown.length ? [section(`… and ${rest.length - shown.length} more`)] : []),
  ];
}

/** The same message once decided: the buttons give way to the outcome, so nobody clicks a decided request. */
export function decidedBlocks(incident: Incident, approval: Approval): { text: string; blocks: Block[] } {
  const request = incident.approval_request;
  // Slack has no escape for its markup: the reason, someone's own words, goes in a plain-text block of its own.
  const outcome = say.outcome(incident, approval).replace(/\*\*/g, '*');
  // A plan's lines stay grouped by device once decided, as they were asked.
  const plan = request?.plan && request.request_id === approval.request_id ? request.plan : undefined;
  const what = plan ? `one change plan on ${plan.map((e) => `\`${escapeMrkdwn(e.device)}\``).join(', ')}` : `configuration change on \`${escapeMrkdwn(incident.device_hostname)}\``;
  return {
    text: outcome,
    blocks: [
      section(`*Decided*: ${what} (request ${escapeMrkdwn(request?.request_id ?? approval.request_id)})`),
      ...(plan
        ? plan.flatMap((e) => [section(`*\`${escapeMrkdwn(e.device)}\`*`), ...codeBlocks(visibleLines(e.commands).lines.slice(0, MAX_LINES_SHOWN))])
        : codeBlocks(visibleLines(approval.commands).lines.slice(0, MAX_LINES_SHOWN))),
      section(escapeMrkdwn(outcome)),
      ...(approval.reason ? quotedBlocks(`Reason given by ${approval.by}`, approval.reason) : []),
    ],
  };
}
