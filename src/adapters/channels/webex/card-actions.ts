import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock';
import { errorText } from '../../../core/error-body';
import { clusterForServiceUrl, decodeHydraId, encodeHydraId } from './hydra-id';
import type { WebexRest } from './rest';
import { activityEventSchema, FAULT_APPROVAL_KEYWORD, type Activity, type CardSubmission, type InboundFrame, type ServiceCatalog } from './schemas';
import { WebexApiError } from './webex-http';

/** Activity ids remembered for de-duplication: far more than clicks arrive during one reconnect. */
const MAX_REMEMBERED_ACTIVITIES = 1000;

export interface CardActionDeps {
  rest: WebexRest;
  clock: Clock;
  logger: Logger;
  /** The bot's own id and the service catalog, once the bot knows them. */
  self(): { uuid?: string; catalog: ServiceCatalog };
  running(): boolean;
  /** Every frame, ours or not: the time of the last event. */
  onEvent(): void;
  onCardSubmission(sub: CardSubmission): void | Promise<void>;
}

/**
 * The bot's inbound side: a `cardAction` activity on the websocket becomes a card submission. Its
 * inputs are read from REST (the socket's copy is encrypted), once per activity across reconnects,
 * one at a time in arrival order; the bot's own actions and other cards' are ignored.
 */
export function createCardActions(deps: CardActionDeps): (frame: InboundFrame) => void {
  const { rest, clock, logger } = deps;
  const emails = new Map<string, string | undefined>();
  const handled = new Set<string>();
  let queue: Promise<void> = Promise.resolve();

  const handleCardAction = async (activity: Activity) => {
    const { uuid: myUuid, catalog } = deps.self();
    const actorUuid = activity.actor.entryUUID ?? (activity.actor.id ? decodeHydraId(activity.actor.id)?.uuid ?? activity.actor.id : undefined);
    if (myUuid && actorUuid === myUuid) return;
    // Inputs on the socket are encrypted; the REST copy is plaintext.
    const actionId = encodeHydraId('ATTACHMENT_ACTION', activity.id, clusterForServiceUrl(catalog, activity.target?.url));
    const action = await fetchAction(actionId);
    if (action.inputs['callback_keyword'] !== FAULT_APPROVAL_KEYWORD) {
      logger.debug({ action_id: action.id }, 'webex card submission for another card ignored');
      return;
    }
    if (myUuid && decodeHydraId(action.personId)?.uuid === myUuid) return;
    const personEmail = action.personEmail ?? (await emailOf(action.personId));
    const submission: CardSubmission = {
      actionId: action.id,
      messageId: action.messageId,
      roomId: action.roomId,
      personId: action.personId,
      ...(personEmail ? { personEmail } : {}),
      inputs: action.inputs,
      created: action.created,
    };
    logger.info({ action_id: action.id, message_id: action.messageId }, 'webex card submission received');
    await deps.onCardSubmission(submission);
  };

  // The activity can outrun the REST copy; a short retry covers that and brief outages.
  const fetchAction = async (id: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await rest.getAttachmentAction(id);
      } catch (error) {
        const retriable = error instanceof WebexApiError && (error.status === undefined || error.status === 404 || error.status >= 500);
        if (!retriable || attempt >= 2 || !deps.running()) throw error;
        await new Promise<void>((resolve) => clock.setTimeout(resolve, 1_000 * (attempt + 1)));
      }
    }
  };

  const emailOf = async (personId: string): Promise<string | undefined> => {
    if (emails.has(personId)) return emails.get(personId);
    try {
      const email = (await rest.getPerson(personId)).emails[0];
      emails.set(personId, email);
      return email;
    } catch (error) {
      logger.warn({ err: errorText(error) }, 'webex person lookup failed; submission passed on without e-mail');
      return undefined;
    }
  };

  return (frame) => {
    deps.onEvent();
    const event = activityEventSchema.safeParse(frame.data);
    if (!event.success || event.data.activity.verb !== 'cardAction') return;
    const activity = event.data.activity;
    // Across a reconnect, the old socket and the new one (and Mercury's buffered replay) can both
    // carry the same activity: each click is acted on once.
    if (handled.has(activity.id)) return;
    handled.add(activity.id);
    if (handled.size > MAX_REMEMBERED_ACTIVITIES) handled.delete(handled.values().next().value as string);
    // One at a time, in arrival order: approvals must see clicks in the order people made them.
    queue = queue.then(() => handleCardAction(activity)).catch((error: unknown) => {
      logger.error({ err: errorText(error), activity_id: activity.id }, 'webex card submission not handled');
    });
  };
}
