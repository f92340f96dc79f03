import { storableText } from '../../../core/incidents/storable-text';
import type { Logger } from 'pino';
import type { Incident } from '../../../core/incidents/model';
import type { ChannelConnection, ChannelHost, OperatorChannel } from '../../../core/approvals/operator-channel';
import { ack } from './wording';
import { labelledQuote } from '../../../core/approvals/inert-text';
import { approvalFallbackMarkdown, buildApprovalCard } from './approval-card';
import { sameHydraObject } from './hydra-id';
import { faultApprovalDataSchema, type AdaptiveCard, type CardSubmission, type MessagingStatus } from './schemas';

export const WEBEX_CHANNEL = 'webex';

/** The room where operators see messages and approval cards: the Webex bot, or a test's stand-in. */
export interface OperatorRoom {
  postMarkdown(markdown: string): Promise<unknown>;
  postCard(card: AdaptiveCard, fallbackMarkdown: string): Promise<{ id: string }>;
  /** The bot's websocket (a test's stand-in has none): held by the team's leader only. */
  start?(): Promise<void>;
  stop?(): Promise<void>;
  status?(): MessagingStatus;
}

/** The port's view of the bot's websocket, for /health and the team's leadership. */
function connectionOf(room: OperatorRoom): ChannelConnection | undefined {
  const { start, stop, status } = room;
  if (!start || !stop || !status) return undefined;
  return {
    connect: () => start.call(room),
    disconnect: () => stop.call(room),
    health: () => {
      const s = status.call(room);
      return { connected: s.connected, ...(s.error ? { error: s.error } : {}), ...(s.lastEventAt ? { last_event_at: s.lastEventAt } : {}) };
    },
  };
}

export interface WebexChannelOptions {
  /** The room, or how to build it given where its card clicks go (the bot: from-config.ts). */
  room: OperatorRoom | ((onCardSubmission: (sub: CardSubmission) => Promise<void>) => OperatorRoom);
  /** MSG_ROOM_ID; without it card submissions are ignored (nothing says which room is ours). */
  roomId?: string;
  /** MSG_APPROVERS: lower-case e-mails; empty: anyone in the room may decide. */
  approvers: string[];
  logger: Logger;
}

export interface WebexChannel extends OperatorChannel {
  /** A click on an approval card, as the bot reads it (plaintext, from REST); a test's room calls it directly. */
  onCardSubmission(sub: CardSubmission): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Webex as an operator channel: it owns the Adaptive Card, the Hydra ids and the room and
 * approver checks. Every submission is acknowledged in the room, whether it decided something
 * or not, so nobody clicks twice wondering.
 */
export function createWebexChannel(opts: WebexChannelOptions): WebexChannel {
  const { logger } = opts;
  let host: ChannelHost | undefined;
  const room = typeof opts.room === 'function' ? opts.room(onCardSubmission) : opts.room;
  const connection = connectionOf(room);
  const say = (markdown: string) =>
    room.postMarkdown(markdown).catch((error: unknown) => logger.error({ err: error }, 'could not acknowledge a card submission'));
  // Records from before channels were adapters kept the Webex card id in `card_message_id`.
  const cardOf = (i: Incident) => i.approval_request?.channel_messages?.[WEBEX_CHANNEL] ?? i.approval_request?.card_message_id;

  async function onCardSubmission(sub: CardSubmission): Promise<void> {
    if (!host || !opts.roomId) {
      logger.warn('card submission ignored: no operator room configured');
      return;
    }
    const who = sub.personEmail ?? sub.personId;
    const data = faultApprovalDataSchema.safeParse(sub.inputs);
    if (!data.success) {
      logger.warn({ action: sub.actionId }, 'card submission without fault_approval data ignored');
      return;
    }
    const { incident_id, alert_def_id, decision } = data.data;
    const log = logger.child({ incident_id, by: who });

    if (!sameHydraObject(sub.roomId, opts.roomId)) {
      log.warn({ room: sub.roomId }, 'card submission from another room refused');
      await say(ack.otherRoom(who));
      return;
    }
    const email = sub.personEmail?.toLowerCase();
    if (opts.approvers.length > 0 && (!email || !opts.approvers.includes(email))) {
      log.warn('card submission from a person not in MSG_APPROVERS refused');
      await say(ack.notAllowed(who));
      return;
    }

    // By incident_id; else (the seed's card shape) the incident whose pending request this very card was posted for.
    const postedWith = (i: Incident) => {
      const card = cardOf(i);
      return Boolean(card && sameHydraObject(card, sub.messageId));
    };
    let target = incident_id ? host.incident(incident_id) : undefined;
    if (!incident_id) {
      const candidates = host.pending().filter((i) => i.alert_def_id === alert_def_id);
      target = candidates.find(postedWith);
      if (!target && candidates.length > 1) {
        log.warn({ alert_def_id, candidates: candidates.map((i) => i.incident_id) }, 'card submission without incident_id is ambiguous; refused');
        await say(ack.ambiguous(alert_def_id, candidates, who));
        return;
      }
      // One pending request of that alert, but this card was posted for another (an older) request.
      if (!target && candidates[0]) {
        await say(ack.staleCard(candidates[0], who));
        return;
      }
    }
    if (!target) {
      await say(ack.noActive(alert_def_id, incident_id, who));
      return;
    }
    const reason = typeof sub.inputs.reason === 'string' ? storableText(sub.inputs.reason) : undefined;
    // The card's own request: carried by the relay's cards, else known by the message the card is.
    const requestId = data.data.request_id ?? (postedWith(target) ? (target.approval_request?.request_id ?? '') : `card ${sub.messageId}`);
    const result = await host.decide({ channel: WEBEX_CHANNEL, incident_id: target.incident_id, request_id: requestId, decision, person: { id: who }, ...(reason !== undefined ? { reason } : {}) });
    switch (result.status) {
      case 'accepted':
        return; // acknowledged by the host, on every channel
      case 'already_decided':
        await say(ack.alreadyDecided(result.incident, result.approval, who));
        return;
      case 'stale_request':
        await say(ack.staleCard(result.incident, who));
        return;
      case 'recorded':
      case 'already_approved_by_you':
      case 'not_allowed_by_policy':
        await say(ack.policy(result.incident, result, who));
        return;
      case 'not_awaiting':
      case 'unknown_incident':
        await say(ack.noActive(alert_def_id, target.incident_id, who));
    }
  }

  return {
    name: WEBEX_CHANNEL,
    async ask(request) {
      const posted = await room.postCard(buildApprovalCard(request), approvalFallbackMarkdown(request));
      return { message_id: posted.id };
    },
    async tell(markdown, quoted) {
      await room.postMarkdown(quoted ? `${markdown}\n\n${labelledQuote(quoted.label, quoted.text)}` : markdown);
    },
    async acknowledge(incident, approval) {
      await room.postMarkdown(ack.accepted(incident, approval));
    },
    attach(h) {
      host = h;
    },
    ...(connection ? { connection } : {}),
    async stop() {
      await room.stop?.();
    },
    onCardSubmission,
  };
}
