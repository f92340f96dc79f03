import { z } from 'zod';

/**
 * A change on a router after it was applied: provisional until confirmed. The device tool server
 * keeps the configuration from before and rolls back by itself at the deadline; the relay moves this
 * record, through the table below only, when the post-check or a person confirms, or when it learns
 * the change was rolled back.
 */
export const CHANGE_STATES = ['pending', 'confirmed', 'rolled_back', 'rollback_failed', 'not_applied'] as const;
export const changeStateSchema = z.enum(CHANGE_STATES);
export type ChangeRecordState = z.infer<typeof changeStateSchema>;

/** How a change ended: each has one wording on every channel (changeOutcomeText). */
export const CHANGE_ENDINGS = ['post_check', 'person', 'post_check_failed', 'deadline', 'requested', 'server_restart', 'server_stop', 'session_lost', 'apply_failed'] as const;
export const changeEndingSchema = z.enum(CHANGE_ENDINGS);
export type ChangeEnding = z.infer<typeof changeEndingSchema>;

export const changeRecordSchema = z.object({
  change_id: z.string(),
  device: z.string(),
  state: changeStateSchema,
  /** When the device tool server rolls the change back unless it is confirmed. */
  deadline: z.string(),
  confirm_within_s: z.number().int().positive(),
  applied_at: z.string(),
  ended_at: z.string().nullable().default(null),
  ended_by: changeEndingSchema.nullable().default(null),
  /** The person who confirmed (their email), when a person did. */
  person: z.string().nullable().default(null),
  /** The read-back after a rollback, or the post-check's failing checks. */
  detail: z.string().nullable().default(null),
  /**
   * A plan's device whose lines the relay sent under this (its own) change id without having had the
   * device tool server's answer: recorded before the first line left, so a relay or server that dies
   * meanwhile still knows to ask the server about it. `not_applied` once the server says it never took it.
   */
  unanswered: z.literal(true).optional(),
});
export type ChangeRecord = z.infer<typeof changeRecordSchema>;

export const CHANGE_EVENTS = ['confirm', 'rolled_back', 'rollback_failed'] as const;
export type ChangeEvent = (typeof CHANGE_EVENTS)[number];

const TRANSITIONS: ReadonlyArray<readonly [ChangeRecordState, ChangeEvent, ChangeRecordState]> = [
  ['pending', 'confirm', 'confirmed'],
  ['pending', 'rolled_back', 'rolled_back'],
  ['pending', 'rollback_failed', 'rollback_failed'],
];
const table = new Map(TRANSITIONS.map(([from, event, to]) => [`${from}/${event}`, to]));

/** The next state, or why not: a confirm after a rollback, a second confirm, a rollback of a confirmed change. */
export function nextChangeState(from: ChangeRecordState, event: ChangeEvent): { ok: true; state: ChangeRecordState } | { ok: false; reason: string } {
  const to = table.get(`${from}/${event}`);
  if (to) return { ok: true, state: to };
  return { ok: false, reason: `the change is already ${from.replace('_', ' ')}` };
}

/** What the timeline, the tray and the cards say about a finished change. */
export function changeOutcomeText(change: Pick<ChangeRecord, 'state' | 'ended_by' | 'person' | 'confirm_within_s' | 'detail'>): string {
  switch (change.state) {
    case 'pending':
      return `provisional: rolls back unless confirmed within ${change.confirm_within_s} s`;
    case 'confirmed':
      return change.ended_by === 'person' ? `confirmed by ${change.person ?? 'a person'}` : 'confirmed by post-check';
    case 'rolled_back':
      return `rolled back: ${ROLLBACK_WHY[change.ended_by ?? 'requested'](change.confirm_within_s)}`;
    case 'rollback_failed':
      return `ROLLBACK FAILED (${ROLLBACK_WHY[change.ended_by ?? 'requested'](change.confirm_within_s)}): check the device${change.detail ? `: ${change.detail}` : ''}`;
    case 'not_applied':
      return `not changed${change.detail ? ` (${change.detail})` : ''}`;
  }
}

const ROLLBACK_WHY: Record<ChangeEnding, (s: number) => string> = {
  post_check: () => 'post-check',
  person: () => 'by a person',
  post_check_failed: () => 'post-check failed',
  deadline: (s) => `not confirmed within ${s} s`,
  requested: () => 'requested',
  server_restart: () => 'the device tool server restarted with the change unconfirmed',
  server_stop: () => 'the device tool server stopped with the change unconfirmed',
  session_lost: () => 'the session to the device was lost',
  apply_failed: () => 'its lines failed and were undone by the device tool server',
};

/** The device tool server's rollback reason, as the relay words it. */
export function endingOfReason(reason: string | undefined): ChangeEnding {
  if (reason === 'deadline' || reason === 'server_restart' || reason === 'server_stop' || reason === 'session_lost' || reason === 'apply_failed') return reason;
  if (reason && /post-check/i.test(reason)) return 'post_check_failed';
  return 'requested';
}
