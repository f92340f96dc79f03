import type { Logger } from 'pino';
import type { Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { faultApprovalDataSchema, type CardSubmission } from '../messaging/schemas';
import type { Approvals, DecideFn } from './approvals';
import type { OperatorRoom } from './operator-room';
import { ack } from './wording';
import { sameHydraObject } from '../messaging/hydra-id';

export interface CardSubmissionDeps {
  /** `decide` may be the team relay's, which records the decision in the database first. */
  approvals: Omit<Approvals, 'decide'> & { decide: DecideFn };
  incidents: Incidents;
  room: OperatorRoom;
  roomId: string;
  /** Lower-case e-mails; empty: anyone in the room may decide. */
  approvers: string[];
  logger: Logger;
}

/**
 * A click on an approval card. Every submission is acknowledged in the room,
 * whether it decided something or not, so nobody clicks twice wondering.
 */
export function createCardSubmissionHandler(deps: CardSubmissionDeps) {
  const { approvals, incidents, room, logger } = deps;
  const say = (markdown: string) =>
    room.postMarkdown(markdown).catch((error: unknown) => logger.error({ err: error }, 'could not acknowledge a card submission'));

  return async function onCardSubmission(sub: CardSubmission): Promise<void> {
    const who = sub.personEmail ?? sub.personId;
    const data = faultApprovalDataSchema.safeParse(sub.inputs);
    if (!data.success) {
      logger.warn({ action: sub.actionId }, 'card submission without fault_approval data ignored');
      return;
    }
    const { incident_id, alert_def_id, decision } = data.data;
    const log = logger.child({ incident_id, by: who });

    if (!sameHydraObject(sub.roomId, deps.roomId)) {
      log.warn({ room: sub.roomId }, 'card submission from another room refused');
      await say(ack.otherRoom(who));
      return;
    }
    const email = sub.personEmail?.toLowerCase();
    if (deps.approvers.length > 0 && (!email || !deps.approvers.includes(email))) {
      log.warn('card submission from a person not in MSG_APPROVERS refused');
      await say(ack.notAllowed(who));
      return;
    }

    // By incident_id; else (the seed's card shape) the incident whose pending request this very card was posted for.
    const postedWith = (i: Incident) => Boolean(i.approval_request?.card_message_id && sameHydraObject(i.approval_request.card_message_id, sub.messageId));
    let target = incident_id ? incidents.get(incident_id) : undefined;
    if (!incident_id) {
      const candidates = approvals.pending().filter((i) => i.alert_def_id === alert_def_id);
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
    const reason = typeof sub.inputs.reason === 'string' ? sub.inputs.reason : undefined;
    // The card's own request: carried by the relay's cards, else known by the message the card is.
    const requestId = data.data.request_id ?? (postedWith(target) ? target.approval_request?.request_id : `card ${sub.messageId}`);
    const result = await approvals.decide(target.incident_id, decision, { id: who }, 'webex', reason, requestId);
    switch (result.status) {
      case 'accepted':
        await approvals.acknowledge(result.incident.incident_id).catch((error: unknown) => logger.error({ err: error }, 'could not acknowledge a decision'));
        return;
      case 'already_decided':
        await say(ack.alreadyDecided(result.incident, result.approval, who));
        return;
      case 'stale_request':
        await say(ack.staleCard(result.incident, who));
        return;
      default:
        await say(ack.noActive(alert_def_id, target.incident_id, who));
    }
  };
}
