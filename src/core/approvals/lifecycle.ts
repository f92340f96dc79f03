import { z } from 'zod';
import { operatorChannelNameSchema } from './operator-channel';

/**
 * The approval gate's state machine, as data. Two typed fields on the incident carry it:
 * `approval_request.status` (what the humans said) and `application.status` (what the
 * device guard did with it). Nothing else decides whether a change may reach a router.
 */
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'superseded'] as const;
export const approvalStatusSchema = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>;

export const APPLICATION_STATUSES = ['none', 'claimed', 'applied', 'failed'] as const;
export const applicationStatusSchema = z.enum(APPLICATION_STATUSES);
export type ApplicationStatus = z.infer<typeof applicationStatusSchema>;

/**
 * Where a decision came from. Only humans' channels can produce APPROVED; `ttl` and `unattended` are the relay's own.
 * The relay's own sources are listed here; operator channels (Webex, Slack …) are adapters the relay
 * registers at start (src/core/approvals/operator-channel.ts), so the domain stores their name as a checked
 * string instead of listing products. Records written by earlier versions (`webex`) still parse.
 */
export const BUILT_IN_DECISION_CHANNELS = ['desktop', 'terminal', 'api', 'ui', 'ttl', 'unattended', 'command line', 'test'] as const;
export type BuiltInDecisionChannel = (typeof BUILT_IN_DECISION_CHANNELS)[number];
export const decisionChannelSchema = z.union([z.enum(BUILT_IN_DECISION_CHANNELS), operatorChannelNameSchema]);
/** A built-in source, or the name of a registered operator channel (validated where a channel hands a decision in). */
export type DecisionChannel = BuiltInDecisionChannel | (string & {});

export const GATE_EVENTS = ['request', 'approve', 'deny', 'expire', 'lapse', 'supersede', 'claim', 'applied', 'release', 'fail', 'interrupt'] as const;
export type GateEvent = (typeof GATE_EVENTS)[number];

/** `none`: no approval was ever requested for the incident. */
export type GateApproval = ApprovalStatus | 'none';
export interface GatePhase {
  approval: GateApproval;
  application: ApplicationStatus;
}

type Row = readonly [GateApproval, ApplicationStatus, GateEvent, GateApproval, ApplicationStatus];

/**
 * Every allowed transition. Anything not listed is refused with the reason below.
 * - A new request replaces a finished approval (a further change needs its own approval),
 *   but never one that is pending or whose lines are being applied.
 * - `claim` is taken before the device call, so of N concurrent calls exactly one proceeds.
 * - `release` undoes a claim only when the device tool server was never reached (nothing applied).
 * - `fail` and `interrupt` (a restart during the call) burn the approval: the device state is
 *   unknown, so a retry needs a new human decision.
 * - `lapse`: an approval not applied within the apply window expires; a change approved hours
 *   ago is not applied on the strength of that old decision.
 */
export const TRANSITIONS: readonly Row[] = [
  ['none', 'none', 'request', 'pending', 'none'],
  ['approved', 'none', 'request', 'pending', 'none'],
  ['approved', 'applied', 'request', 'pending', 'none'],
  ['approved', 'failed', 'request', 'pending', 'none'],
  ['denied', 'none', 'request', 'pending', 'none'],
  ['expired', 'none', 'request', 'pending', 'none'],
  ['superseded', 'none', 'request', 'pending', 'none'],
  ['pending', 'none', 'approve', 'approved', 'none'],
  ['pending', 'none', 'deny', 'denied', 'none'],
  ['pending', 'none', 'expire', 'expired', 'none'],
  ['pending', 'none', 'supersede', 'superseded', 'none'],
  ['approved', 'none', 'supersede', 'superseded', 'none'],
  ['approved', 'none', 'lapse', 'expired', 'none'],
  ['approved', 'none', 'claim', 'approved', 'claimed'],
  ['approved', 'claimed', 'applied', 'approved', 'applied'],
  ['approved', 'claimed', 'release', 'approved', 'none'],
  ['approved', 'claimed', 'fail', 'approved', 'failed'],
  ['approved', 'claimed', 'interrupt', 'approved', 'failed'],
];

const key = (approval: GateApproval, application: ApplicationStatus, event: GateEvent) => `${approval}/${application}/${event}`;
const table = new Map(TRANSITIONS.map(([a, app, ev, toA, toApp]) => [key(a, app, ev), { approval: toA, application: toApp }] as const));

export type GateResult = { ok: true; next: GatePhase } | { ok: false; reason: string };

/** Why an event is refused in a phase, worded for the agent (tool errors) and the timeline. */
function refusal(from: GatePhase, event: GateEvent): string {
  const { approval, application } = from;
  if (event === 'claim') {
    if (approval === 'none' || approval === 'pending') return 'no approval yet: call relay_request_approval with the exact lines and wait for the HUMAN OPERATOR RESPONSE';
    if (approval === 'denied') return 'the operator decision was DENIED: apply nothing and escalate';
    if (approval === 'expired') return 'the approval EXPIRED without a decision: apply nothing and escalate';
    if (approval === 'superseded') return 'that approval was superseded: request a new one';
    if (application === 'claimed') return 'the approved change is being applied by another call; it is applied once';
    if (application === 'applied') return 'the approved change was already applied; a further change needs a new approval';
    if (application === 'failed') return 'applying the approved change failed; the device state is unknown, so a retry needs a new approval';
  }
  if (event === 'request') {
    if (approval === 'pending') return 'an approval is already pending; wait for the HUMAN OPERATOR RESPONSE';
    if (application === 'claimed') return 'the approved change is being applied; wait for the result';
  }
  if (event === 'approve' || event === 'deny' || event === 'expire') {
    if (approval === 'none') return 'no approval has been requested';
    return `the approval is already ${approval}`;
  }
  return `${event} is not possible while the approval is ${approval} and its application ${application}`;
}

/** The one function that moves the gate. Pure: callers store `next` before acting on it. */
export function transition(from: GatePhase, event: GateEvent): GateResult {
  const next = table.get(key(from.approval, from.application, event));
  return next ? { ok: true, next } : { ok: false, reason: refusal(from, event) };
}
