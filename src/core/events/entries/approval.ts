import { z } from 'zod';
import { define } from '../define';

const commands = z.array(z.string());
/** What a held request waits for: another incident's change, or (a plan) a quarantined device's clear. */
const held = { waiting_for_incident: z.string().optional(), waiting_for_change: z.string().optional(), quarantined_since: z.string().optional(), quarantine_reason: z.string().optional() };
const policy = { rule: z.string(), policy_sha256: z.string() };

const forged = z.looseObject({ kind: z.enum(['decision', 'confirm']), key: z.string() });

/** The approval gate and the change policy: what was asked, shown, decided and why. */
export const approvalEntries = {
  approvalRequested: define('approval.requested', z.looseObject({ request_id: z.string(), commands, channels: z.array(z.string()), lines_sha256: z.string() }), 'approval'),
  approvalShown: define('approval.shown', z.looseObject({ request_id: z.string().optional() }), 'approval'),
  approvalNotShown: define('approval.not_shown', z.looseObject({}), 'approval'),
  approvalDecided: define('approval.decided', z.looseObject({ decision: z.string(), by: z.string(), channel: z.string() }), 'approval'),
  approvalVote: define('approval.vote', z.looseObject({ request_id: z.string(), by: z.string(), channel: z.string(), given: z.number(), needed: z.number() }), 'approval'),
  approvalSkipped: define('approval.skipped', z.looseObject({ decision: z.string(), commands }), 'approval'),
  approvalExpired: define('approval.expired', z.looseObject({}), 'approval'),
  approvalLapsed: define('approval.lapsed', z.looseObject({ request_id: z.string().optional() }), 'approval'),
  approvalSuperseded: define('approval.superseded', z.looseObject({}), 'approval'),
  approvalForwarded: define('approval.forwarded', z.looseObject({ decision: z.string() }), 'approval'),
  approvalNotForwarded: define('approval.not_forwarded', z.looseObject({}), 'approval'),
  approvalForwardFailed: define('approval.forward_failed', z.looseObject({}), 'error'),
  approvalHeld: define('approval.held', z.looseObject({ device: z.string(), ...held, commands }), 'approval'),
  approvalUnheld: define('approval.unheld', z.looseObject(held), 'approval'),
  approvalQuarantined: define('approval.quarantined', z.looseObject({ device: z.string(), reason: z.string() }), 'approval'),
  approvalPreviewUnavailable: define('approval.preview_unavailable', z.looseObject({}), 'approval'),
  approvalPreviewRefused: define('approval.preview_refused', z.looseObject({ commands, problems: z.array(z.string()), method: z.string() }), 'approval'),
  approvalPlanRefused: define('approval.plan_refused', z.looseObject({ devices: z.array(z.string()), reason: z.string() }), 'error'),
  policyVerdict: define('policy.verdict', z.looseObject({ ...policy, groups: z.array(z.string()), count: z.number(), lines_sha256: z.string() }), 'runtime'),
  policyEscalated: define('policy.escalated', z.looseObject({ ...policy, verdict: z.string(), owner: z.string().optional(), lines_sha256: z.string() }), 'runtime'),
  policyRechecked: define('policy.rechecked', z.looseObject({ ...policy, verdict: z.string(), approved_under: z.string().optional(), owner: z.string().optional() }), 'runtime'),
  /** A team database row whose MAC did not verify: ignored. */
  decisionForged: define('decision.forged', forged, 'runtime'),
  confirmForged: define('confirm.forged', forged, 'runtime'),
};
