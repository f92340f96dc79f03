import { z } from 'zod';
import { visibleLines } from '../../../core/approvals/visible-text';
import { AGENT_SUMMARY_LABEL, labelledQuote, visibleText } from '../../../core/approvals/inert-text';
import { planEntrySchema } from '../../../core/approvals/plan-lines';
import { ConfigPreview } from '../../../runbooks/config-preview';
import { commandBlock, planBlocks, previewBlock, rollbackBlock, verbatimLine } from './card-blocks';
import { FAULT_APPROVAL_KEYWORD, type AdaptiveCard, type FaultApprovalData } from './schemas';

export const approvalCardInputSchema = z.object({
  incident_id: z.string().min(1),
  request_id: z.string().min(1),
  alert_def_id: z.string().min(1),
  device: z.string().min(1),
  summary: z.string().min(1),
  commands: z.array(z.string().min(1)).min(1),
  artifact_ref: z.string().min(1).optional(),
  expires_at: z.string().min(1).optional(),
  /** SHA-256 of the lines (src/core/approvals/lines.ts): the card shows its first 12 characters. */
  lines_sha256: z.string().min(12).optional(),
  /** What the agents read on the device before asking (src/core/approvals/evidence.ts). */
  evidence: z.array(z.object({ command: z.string(), lines: z.array(z.string()) })).optional(),
  /** The dry run of the lines on the live device; null or absent: the card says no preview is available. */
  preview: ConfigPreview.nullable().optional(),
  /** The change policy's rule and how far its approvals are (src/core/approvals/standing.ts); absent without a policy. */
  policy: z.string().min(1).optional(),
  /** A change plan (the core's ApprovalAsk.plan): shown grouped by device, each with its preview and rollback. */
  plan: z.array(planEntrySchema).min(2).optional(),
});
export type ApprovalCardInput = z.infer<typeof approvalCardInputSchema>;

// A card is one message: long command lists are shown in part, the agent's prompt has them all.
const MAX_LINES_SHOWN = 40;
const MAX_SUMMARY_CHARS = 2000;
/**
 * The card's JSON budget. Webex refuses oversized card attachments; this stays well under the
 * size its clients are known to take, so a long change list is cut (with a note), never refused.
 */
export const CARD_MAX_BYTES = 20_000;

const TOO_MANY = { type: 'TextBlock', text: 'Too many lines to show them all here: approve in the tray, where every line is shown. You can deny here.', wrap: true, color: 'Attention' };

/**
 * The approval card: Adaptive Card 1.3 with Approve / Deny `Action.Submit` buttons whose data
 * routes the submission (`callback_keyword: fault_approval`) and an optional reason field.
 * Throws with the failing fields when the input is incomplete.
 */
export function buildApprovalCard(input: ApprovalCardInput): AdaptiveCard {
  const parsed = approvalCardInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new Error(`approval card: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'} ${i.message}`).join('; ')}`);
  }
  const a = parsed.data;
  const commands = visibleLines(a.commands);
  const data = (decision: FaultApprovalData['decision']): FaultApprovalData => ({
    callback_keyword: FAULT_APPROVAL_KEYWORD,
    alert_def_id: a.alert_def_id,
    incident_id: a.incident_id,
    request_id: a.request_id,
    decision,
  });

  const facts = [
    { title: 'Incident', value: a.incident_id },
    { title: 'Request', value: a.request_id },
    { title: 'Alert', value: a.alert_def_id },
    ...(a.plan ? [{ title: 'Devices', value: a.plan.map((e) => e.device).join(', ') }] : [{ title: 'Device', value: a.device }]),
    ...(a.artifact_ref ? [{ title: 'Artifact', value: a.artifact_ref }] : []),
    ...(a.expires_at ? [{ title: 'Expires', value: a.expires_at }] : []),
    ...(a.lines_sha256 ? [{ title: a.plan ? 'Plan hash' : 'Lines hash', value: a.lines_sha256.slice(0, 12) }] : []),
    ...(a.policy ? [{ title: 'Policy', value: a.policy }] : []),
  ];
  // Shrinks what is shown until the card fits Webex's attachment size: a card that is too big is
  // refused, and then nobody can decide at all.
  // The evidence gives way first (10 lines per command, then 3, then none); only then the lines shown.
  for (const evidenceLines of [10, 3]) {
    const card = cardWith(MAX_LINES_SHOWN, evidenceLines);
    if (Buffer.byteLength(JSON.stringify(card)) <= CARD_MAX_BYTES) return card;
  }
  for (let shown = MAX_LINES_SHOWN; ; shown = Math.floor(shown / 2)) {
    const card = cardWith(shown, 0);
    if (shown <= 1 || Buffer.byteLength(JSON.stringify(card)) <= CARD_MAX_BYTES) return card;
  }

  function singleDevice(shown: number, complete: boolean): AdaptiveCard['body'] {
    return [
      ...commandBlock('Commands to apply, exactly these, once', commands.lines, shown),
      ...(commands.warning ? [{ type: 'TextBlock', text: commands.warning, wrap: true, color: 'Attention', weight: 'Bolder' }] : []),
      // Beside the lines: what they would change on the live device (a dry run), or that nobody could tell.
      ...previewBlock(a.preview ?? null, shown),
      ...(complete ? [] : [TOO_MANY]),
      // The relay's own rollback, from the configuration before: the agent's proposed one is never shown as it.
      ...rollbackBlock(a.preview ?? null, shown),
    ];
  }

  function cardWith(shown: number, evidenceLines: number): AdaptiveCard {
    // What a person approves is what is applied: with lines left out, the card can only deny.
    const complete = a.plan ? a.plan.every((e) => e.commands.length <= shown) : a.commands.length <= shown;
    return {
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      type: 'AdaptiveCard',
      version: '1.3',
      body: [
        { type: 'TextBlock', text: a.plan ? `Approval needed: one change plan on ${a.plan.length} devices, applied to all or none` : `Approval needed: configuration change on ${a.device}`, weight: 'Bolder', size: 'Medium', wrap: true },
        { type: 'FactSet', facts },
        // The lines before the agent's summary: what is applied is read first, as the device receives it.
        ...(a.plan ? [...planBlocks(a.plan, shown), ...(complete ? [] : [TOO_MANY])] : singleDevice(shown, complete)),
        ...evidenceBlock(a.evidence ?? [], evidenceLines),
        // Last, below everything the relay says: the agent's words, labelled, never read as Markdown.
        ...agentSummaryBlock(clip(a.summary, MAX_SUMMARY_CHARS)),
        { type: 'Input.Text', id: 'reason', placeholder: 'Reason (optional)', isMultiline: true, maxLength: 500 },
      ],
      actions: [
        ...(complete ? [{ type: 'Action.Submit', title: 'Approve', style: 'positive', data: data('APPROVED') }] : []),
        { type: 'Action.Submit', title: 'Deny', style: 'destructive', data: data('DENIED') },
      ],
    };
  }
}

/** What card-less clients (and notifications) show instead of the card. */
export function approvalFallbackMarkdown(input: ApprovalCardInput): string {
  const a = approvalCardInputSchema.parse(input);
  return [
    a.plan
      ? `**Approval needed** for ${a.incident_id} (${a.alert_def_id}): one change plan on ${a.plan.map((e) => `\`${e.device}\``).join(', ')}.`
      : `**Approval needed** for ${a.incident_id} (${a.alert_def_id}) on \`${a.device}\`.`,
    `Open this message in a Webex client that shows cards to approve or deny ${a.plan ? a.plan.reduce((n, e) => n + e.commands.length, 0) : a.commands.length} command(s).`,
    labelledQuote(AGENT_SUMMARY_LABEL, clip(a.summary, 500)),
  ].join('\n\n');
}

/**
 * The agent's summary under the relay's label, in TextRuns (never read as Markdown) and not in the
 * monospace of the lines: nothing in it can look like a heading, a line to apply, or a button.
 */
function agentSummaryBlock(summary: string): AdaptiveCard['body'] {
  const run = (line: string) => ({ type: 'RichTextBlock', spacing: 'None', inlines: [{ type: 'TextRun', text: line || '\u00a0' }] });
  return [
    { type: 'TextBlock', text: AGENT_SUMMARY_LABEL, weight: 'Bolder', isSubtle: true, spacing: 'Large', separator: true, wrap: true },
    { type: 'Container', items: visibleText(summary).split('\n').map(run) },
  ];
}

function evidenceBlock(evidence: NonNullable<ApprovalCardInput['evidence']>, linesEach: number): AdaptiveCard['body'] {
  if (evidence.length === 0 || linesEach === 0) return [];
  return [
    { type: 'TextBlock', text: 'Evidence (what the agents read on the device)', weight: 'Bolder', spacing: 'Medium' },
    ...evidence.map((e) => ({
      type: 'Container',
      items: [
        verbatimLine(e.command),
        ...e.lines.slice(0, linesEach).map((l) => verbatimLine(`  ${l}`)),
        ...(e.lines.length > linesEach ? [{ type: 'TextBlock', text: `… ${e.lines.length - linesEach} more lines in the tray`, isSubtle: true, spacing: 'None' }] : []),
      ],
    })),
  ];
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
