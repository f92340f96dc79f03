import { z } from 'zod';
import type { Approval, Incident } from '../incidents/model';
import { planEntrySchema } from './plan-lines';
import { ConfigPreview } from '../../runbooks/config-preview';
import type { DecideResult } from './types';

/**
 * The `OperatorChannel` port (docs/channels.md): where people are asked, told and heard.
 * Webex and Slack are adapters; each owns its payloads (cards, blocks), its ids and its check of
 * who may decide. The approvals module knows a list of channels by name, never a product.
 */

/**
 * A channel's name, as stored in `approval.channel` and shown in the timeline. Lower-case and
 * without spaces so it can never be mistaken for one of the relay's own decision sources
 * (`command line`, `ttl` …, src/core/approvals/lifecycle.ts), which are checked first.
 */
export const operatorChannelNameSchema = z.string().regex(/^[a-z][a-z0-9-]{1,31}$/, 'a lower-case channel name');

/** What every channel shows a person before they decide: the relay's record, never the model's retelling. */
export const approvalAskSchema = z.object({
  incident_id: z.string().min(1),
  /** Every channel carries it back with the decision: an old message never decides a newer request. */
  request_id: z.string().min(1),
  alert_def_id: z.string().min(1),
  device: z.string().min(1),
  summary: z.string().min(1),
  /** Verbatim, in order: what is approved is what the device guard sends. */
  commands: z.array(z.string().min(1)).min(1),
  artifact_ref: z.string().min(1).optional(),
  expires_at: z.string().min(1),
  lines_sha256: z.string().min(12),
  evidence: z.array(z.object({ command: z.string(), lines: z.array(z.string()) })),
  /** What the lines would change on the live device (a dry run); null or absent: no preview was possible. */
  preview: ConfigPreview.nullable().optional(),
  /** The change policy's rule and how far its approvals are (src/core/approvals/standing.ts); absent without a policy. */
  policy: z.string().min(1).optional(),
  /**
   * A change plan: each device's lines, rollback and dry run, in order, as the guard applies them.
   * `commands` and `preview` then hold the same plan flattened (for a channel that shows text only);
   * a channel that can group shows it from here, never by reading `! device` headings back.
   */
  plan: z.array(planEntrySchema).min(2).optional(),
});
export type ApprovalAsk = z.infer<typeof approvalAskSchema>;

/**
 * A person's decision as a channel hands it back. The person is who the channel vouches for
 * (an e-mail, a Slack user id) after its own allow-list check; the relay names them in the room and the log.
 */
export const channelDecisionSchema = z.object({
  channel: operatorChannelNameSchema,
  incident_id: z.string().min(1),
  /** The request the person was shown; empty only for requests stored before request ids existed. */
  request_id: z.string(),
  decision: z.enum(['APPROVED', 'DENIED']),
  person: z.object({ id: z.string().min(1), display: z.string().optional() }),
  /** Trimmed and cut to 500 characters by `decide()`. */
  reason: z.string().optional(),
});
export type ChannelDecision = z.infer<typeof channelDecisionSchema>;

/**
 * How a channel's connection to its platform stands, in the channel's own words. `degraded` is a
 * stop the platform asked for (reconnecting would only be refused again), with a short code
 * (`too_many_websockets`, `link_disabled` …) and the sentence an operator reads; `warning` keeps the
 * connection up but says something is off (another process holds the app token). Never a secret.
 */
export const channelHealthSchema = z.object({
  connected: z.boolean(),
  degraded: z.object({ reason: z.string().min(1), message: z.string().min(1) }).optional(),
  warning: z.object({ reason: z.string().min(1), message: z.string().min(1) }).optional(),
  /** The last transient failure, while the channel retries on its own. */
  error: z.string().optional(),
  last_event_at: z.string().optional(),
});
export type ChannelHealth = z.infer<typeof channelHealthSchema>;

/**
 * A channel that holds a live connection to its platform (a websocket). On a team only the leader
 * relay holds it: the others leave `connect` uncalled and still ask and tell over the platform's HTTP API.
 */
export interface ChannelConnection {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  health(): ChannelHealth;
}

/** What the relay gives a channel once approvals exist: the one `decide()`, and what it may look up. */
export interface ChannelHost {
  /** Validates, decides through the relay's one `decide()` and, when accepted, acknowledges on every channel. */
  decide(decision: ChannelDecision): Promise<DecideResult>;
  incident(incidentId: string): Incident | undefined;
  /** Incidents waiting for a decision, newest first. */
  pending(): Incident[];
}

/** Text someone else wrote, and the relay's label for it (src/core/approvals/inert-text.ts). */
export interface QuotedText {
  label: string;
  text: string;
}

/**
 * An operator channel as the relay sees it: built by its adapter from the settings
 * (src/adapters/channels/index.ts lists them), asked with the core's `ApprovalAsk`, and heard only
 * through `ChannelHost.decide` once attached. Nothing outside the adapter knows its product.
 */
export interface OperatorChannel {
  /** Its name (operatorChannelNameSchema): kept on the request and the decision, shown in the timeline. */
  readonly name: string;
  /** Posts the approval request; the answer is the channel's own message id (kept on the request, per channel). */
  ask(request: ApprovalAsk): Promise<{ message_id: string }>;
  /**
   * A notice (progress, expiry, a failed session) in the relay's own Markdown; `quoted` is text the
   * relay did not write (the agent's message), shown below it under its label, as text only.
   */
  tell(markdown: string, quoted?: QuotedText): Promise<void>;
  /** Shows the outcome of a decision made on an operator channel (a message, or the card updated). */
  acknowledge(incident: Incident, approval: Approval): Promise<void>;
  /** Called once by the relay when its approvals exist; decisions before it are refused by the adapter. */
  attach(host: ChannelHost): void;
  /** Absent for a channel without a connection of its own (a test's room). */
  readonly connection?: ChannelConnection;
  /** Releases everything the channel holds (its socket, its HTTP clients) when the relay stops for good. */
  stop?(): Promise<void>;
}
