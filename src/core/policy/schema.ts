import { z } from 'zod';
import { duration } from '../../config/schema';

/** `HH:MM-HH:MM` in the policy's time zone; a window that ends before it starts crosses midnight. */
const HOURS = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;
/** A local time in the policy's zone (`2026-12-18T00:00`) or an instant with its offset. */
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?$/;

const ianaZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'not an IANA time zone name (such as UTC or Europe/Amsterdam)');

const groupsSchema = z.array(z.string().min(1)).min(1);
export const requirementSchema = z.strictObject({
  groups: groupsSchema,
  count: z.number().int().min(1).max(10).default(1),
  hours: z.string().regex(HOURS, 'hours are "HH:MM-HH:MM", such as "06:00-22:00"').optional(),
});
export const freezeRequirementSchema = z.strictObject({
  groups: groupsSchema,
  count: z.number().int().min(1).max(10).default(1),
  /** Only incidents of these severities may be changed in a freeze; others escalate. */
  severities: z.array(z.string().min(1)).min(1).optional(),
});

export const policyClassSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a class id is letters, digits, ".", "_" and "-"'),
    /** A CEL expression over `alert`, `device`, `lines` and `now`; the first class it is true for decides. */
    when: z.string().min(1),
    approve: requirementSchema.optional(),
    in_freeze: freezeRequirementSchema.optional(),
    escalate: z.string().min(1).optional(),
    deny: z.string().min(1).optional(),
  })
  .refine((c) => [c.approve, c.escalate, c.deny].filter((x) => x !== undefined).length === 1, {
    message: 'a class has exactly one of approve, escalate or deny',
  });

export const freezeSchema = z.strictObject({
  name: z.string().min(1),
  from: z.string().regex(LOCAL_TIME, 'a time is "YYYY-MM-DDTHH:MM" (in the policy time zone) or has its offset'),
  to: z.string().regex(LOCAL_TIME, 'a time is "YYYY-MM-DDTHH:MM" (in the policy time zone) or has its offset'),
});

/** One step of the escalation chain: `after` counts from when the approval was asked for. */
export const escalationStepSchema = z.strictObject({
  after: z.string().pipe(duration).pipe(z.number().int().positive().max(7 * 24 * 3_600_000)),
  notify: z.enum(['remind', 'pagerduty', 'opsgenie']),
  /** Who this step reaches, in people's words (a rotation: "noc-oncall"); shown in the page and the timeline. */
  to: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'letters, digits, spaces and . _ - (at most 64)').optional(),
});
export const escalationSchema = z.strictObject({
  /** In the order they are carried out; each `after` later than the one before. */
  steps: z.array(escalationStepSchema).max(10).default([]),
}).refine((e) => e.steps.every((s, i) => i === 0 || s.after > (e.steps[i - 1]?.after ?? 0)), {
  message: 'each step\'s `after` must be later than the step before it',
});
export type EscalationStep = z.infer<typeof escalationStepSchema>;

export const policySchema = z.strictObject({
  version: z.literal(1),
  timezone: ianaZone.default('UTC'),
  default: z.enum(['escalate', 'deny']).default('escalate'),
  freezes: z.array(freezeSchema).default([]),
  /** Change records (YAML) and recurring maintenance windows (iCalendar, `.ics`), relative to the policy file. */
  change_records: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  classes: z.array(policyClassSchema).default([]),
  /** For a request nobody answers: remind the channels, then page (src/adapters/paging/). */
  escalation: escalationSchema.default({ steps: [] }),
});
export type Policy = z.infer<typeof policySchema>;
export type PolicyClass = z.infer<typeof policyClassSchema>;

export const changeRecordSchema = z.strictObject({
  id: z.string().min(1),
  device: z.string().min(1),
  /** Any alert field the record names (neighbor_ip, vrf_name, interface …): all must match the alert's. */
  match: z.record(z.string(), z.string()).default({}),
  from: z.string().regex(LOCAL_TIME, 'a time is "YYYY-MM-DDTHH:MM" (in the policy time zone) or has its offset'),
  to: z.string().regex(LOCAL_TIME, 'a time is "YYYY-MM-DDTHH:MM" (in the policy time zone) or has its offset'),
  owner: z.string().min(1),
  status: z.enum(['scheduled', 'in_progress', 'closed', 'cancelled']).default('scheduled'),
});
export const changeRecordsSchema = z.strictObject({ records: z.array(changeRecordSchema).default([]) });
export type ChangeRecord = z.infer<typeof changeRecordSchema>;

/** What the relay decides for a requested change. */
export type Verdict =
  | { kind: 'approve'; rule: string; groups: string[]; count: number; reason: string }
  | { kind: 'escalate'; rule: string; reason: string; owner?: string }
  | { kind: 'deny'; rule: string; reason: string };
