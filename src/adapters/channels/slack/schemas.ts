import { z } from 'zod';

/** Slack's wire shapes the relay reads (Socket Mode frames, Web API answers, block_actions), zod-first. */

export const helloFrameSchema = z.object({
  type: z.literal('hello'),
  num_connections: z.number().int().nonnegative().optional(),
  connection_info: z.object({ app_id: z.string() }).partial().optional(),
});

export const disconnectFrameSchema = z.object({
  type: z.literal('disconnect'),
  reason: z.string(),
});

export const envelopeSchema = z.object({
  envelope_id: z.string().min(1),
  type: z.string(),
  payload: z.unknown(),
  accepts_response_payload: z.boolean().optional(),
  retry_attempt: z.number().optional(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export const webApiAnswerSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional(), warning: z.string().optional() });
export const connectionsOpenSchema = z.object({ ok: z.literal(true), url: z.string().url() });
export const postedMessageSchema = z.object({ ok: z.literal(true), ts: z.string().min(1), channel: z.string().min(1) });
export const userInfoSchema = z.object({
  ok: z.literal(true),
  user: z.object({ id: z.string(), deleted: z.boolean().optional(), profile: z.object({ email: z.string().optional() }).optional() }),
});

/** What the relay's buttons carry in `value`: the request a person was shown, never a URL. */
export const buttonValueSchema = z.object({
  incident_id: z.string().min(1),
  request_id: z.string(),
  decision: z.enum(['APPROVED', 'DENIED']),
  /** First 12 characters of the lines' SHA-256, as shown beside the button. */
  lines: z.string().min(1),
});
export type ButtonValue = z.infer<typeof buttonValueSchema>;

export const blockActionsSchema = z.object({
  type: z.literal('block_actions'),
  api_app_id: z.string(),
  user: z.object({ id: z.string(), username: z.string().optional(), team_id: z.string().optional() }),
  team: z.object({ id: z.string() }).nullable().optional(),
  enterprise: z.object({ id: z.string() }).nullable().optional(),
  channel: z.object({ id: z.string() }).optional(),
  container: z.object({ channel_id: z.string().optional(), message_ts: z.string().optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional(), type: z.string() })).min(1),
});
export type BlockActions = z.infer<typeof blockActionsSchema>;

/** What the Slack channel reports to /health (mirrors the Webex bot's status). */
export interface SlackStatus {
  configured: true;
  connected: boolean;
  /** Too many websockets or Socket Mode turned off: the relay stopped reconnecting and says so. */
  degraded?: string;
  /** Slack's own word for it (`too_many_websockets`, `link_disabled`) or `token_refused`. */
  degradedReason?: string;
  /** `hello.num_connections` above what this relay opened: someone else holds our app token. */
  warning?: string;
  error?: string;
  lastEventAt?: string;
}
