import { z } from 'zod';
import { decisionChannelSchema } from './lifecycle';
import type { DecideResult } from './types';
import type { ConfirmResult } from '../changes/confirmed-apply';

/**
 * How the relay knows who a person is, said with their decision: their personal token (the API, the
 * tray on a team), their /ui session, their account on this machine (the tray), the channel that
 * vouched for them after its own allow-list check (Webex, Slack), the headed terminal's secret, or the
 * relay itself (demos, the eval, tests).
 */
export const AUTHENTICATIONS = ['personal_token', 'ui_session', 'os_user', 'channel', 'terminal_secret', 'relay'] as const;

/**
 * Who decides, as the caller authenticated them. Never their groups or their role: the relay looks
 * those up itself in OPERATORS_FILE from `id` and the channel (named-decide.ts), so no caller can
 * claim a group that would count toward a policy requirement.
 */
export const DecisionPerson = z.object({
  /** An e-mail, a Slack member id (`slack:U…`), or an account on the tray's machine (`os_user`; `… (terminal)` in a headed terminal). */
  id: z.string().min(1).max(256),
  display: z.string().max(256).optional(),
  authenticated_by: z.enum(AUTHENTICATIONS),
});
export type DecisionPerson = z.infer<typeof DecisionPerson>;

/**
 * A person's decision on an approval request, built the same way by every channel (card, Slack,
 * tray, /ui, API, terminal) and handed to the relay's one `decide`.
 */
export const DecisionCommand = z.object({
  incident_id: z.string().min(1).max(64),
  /** The request the person was shown; absent only for the relay's own callers (the pending one is meant). Empty for requests stored before request ids. */
  request_id: z.string().max(64).optional(),
  decision: z.enum(['APPROVED', 'DENIED']),
  who: DecisionPerson,
  channel: decisionChannelSchema,
  /** Trimmed and cut to 500 characters where it is recorded. */
  reason: z.string().optional(),
});
export type DecisionCommand = z.infer<typeof DecisionCommand>;

/** A person keeps a provisional change before its deadline (the tray, /ui, the API). */
export const ConfirmCommand = z.object({
  incident_id: z.string().min(1).max(64),
  /** The change the person was shown: a confirm is for that change only. */
  change_id: z.string().min(1).max(64),
  who: DecisionPerson,
});
export type ConfirmCommand = z.infer<typeof ConfirmCommand>;

/** The relay's one `decide`: every channel hands it a command; it is checked here, whoever built it. */
export type DecideFn = (command: DecisionCommand) => Promise<DecideResult>;

/** The relay's one `confirm`: a person keeps a provisional change, whichever door they came in by. */
export type ConfirmFn = (command: ConfirmCommand) => Promise<ConfirmResult>;
