import type { Logger } from 'pino';
import { clusterForServiceUrl, decodeHydraId, encodeHydraId } from './hydra-id';
import { createMercuryConnection, type MercuryConnection } from './mercury';
import { createWebexRest, type WebexRest } from './rest';
import {
  activityEventSchema,
  FAULT_APPROVAL_KEYWORD,
  type Activity,
  type AdaptiveCard,
  type CardSubmission,
  type InboundFrame,
  type MessagingStatus,
  type ServiceCatalog,
} from './schemas';
import { systemClock, type Clock } from '../../../core/clock';
import { discoverServices } from './u2c';
import { createDeviceManager, type DeviceManager } from './wdm';
import { createWebexHttp, WebexApiError } from './webex-http';
import { createProxyDispatchers, NO_PROXY_SETTINGS, proxyFor, tunnelAgent, type ProxySettings } from '../../net/proxy';
import { errorText } from '../../../core/error-body';

export type { CardSubmission, MessagingStatus } from './schemas';

export interface WebexBotOptions {
  token: string;
  roomId: string;
  /** MSG_U2C_URL, default https://u2c.wbx2.com/u2c/api/v1 */
  u2cUrl: string;
  /** MSG_API_URL, default https://webexapis.com/v1 */
  apiUrl: string;
  /** Device service used only when the catalog cannot be read. */
  fallbackWdmUrl?: string;
  /** Name of the reused WDM device; two relays with one token need different names. */
  deviceName?: string;
  logger: Logger;
  clock?: Clock;
  /** 0 ≤ x < 1, for backoff jitter. */
  random?: () => number;
  /** Proxy settings (HTTPS_PROXY …); default: none. */
  proxy?: ProxySettings;
  /** Card submissions with `callback_keyword: fault_approval`, in arrival order, plaintext. */
  onCardSubmission(sub: CardSubmission): void | Promise<void>;
  onStatus?(s: MessagingStatus): void;
}

export interface WebexBot {
  /** Resolves once the websocket is ready; rejects when a fatal error (bad token, replaced) stops it first. */
  start(): Promise<void>;
  /** Closes the websocket and deletes the device (unless another client took it over). */
  stop(): Promise<void>;
  status(): MessagingStatus;
  postMarkdown(markdown: string, opts?: { parentId?: string }): Promise<{ id: string }[]>;
  postCard(card: AdaptiveCard, fallbackMarkdown: string): Promise<{ id: string }>;
}

/** Activity ids remembered for de-duplication: far more than clicks arrive during one reconnect. */
const MAX_REMEMBERED_ACTIVITIES = 1000;

export function createWebexBot(opts: WebexBotOptions): WebexBot {
  if (!opts.token.trim()) throw new Error('webex bot: token is empty (MSG_BOT_TOKEN)');
  if (!opts.roomId.trim()) throw new Error('webex bot: roomId is empty (MSG_ROOM_ID)');
  for (const [name, value] of [
    ['u2cUrl (MSG_U2C_URL)', opts.u2cUrl],
    ['apiUrl (MSG_API_URL)', opts.apiUrl],
  ] as const) {
    if (!URL.canParse(value)) throw new Error(`webex bot: ${name} is not a URL`);
  }

  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const deviceName = opts.deviceName ?? 'fault-relay';
  const logger = opts.logger.child({ component: 'webex' });
  // Every outbound connection honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY: REST and the websocket alike.
  const proxy = opts.proxy ?? NO_PROXY_SETTINGS;
  const proxies = createProxyDispatchers(proxy);
  const agentFor = (url: string) => {
    const through = proxyFor(url, proxy);
    return through ? tunnelAgent(through) : undefined;
  };
  const http = createWebexHttp(opts.token, { clock, random, dispatcherFor: (url) => proxies.for(url) });
  const rest: WebexRest = createWebexRest({ http, apiUrl: opts.apiUrl });

  let status: MessagingStatus = { configured: true, connected: false, deviceRegistered: false };
  let catalog: ServiceCatalog = { serviceLinks: {}, hostCatalog: {} };
  let myUuid: string | undefined;
  let devices: DeviceManager | undefined;
  let mercury: MercuryConnection | undefined;
  let deviceInUseElsewhere = false;
  let running = false;
  let bootstrapTimer: { cancel(): void; fire(): void } | undefined;
  let queue: Promise<void> = Promise.resolve();
  const emails = new Map<string, string | undefined>();
  const handledActivities = new Set<string>();

  const setStatus = (patch: Partial<MessagingStatus>) => {
    const next = { ...status, ...patch };
    for (const k of Object.keys(next) as (keyof MessagingStatus)[]) if (next[k] === undefined) delete next[k];
    status = next;
    try {
      opts.onStatus?.({ ...status });
    } catch (error) {
      logger.warn({ err: errorText(error) }, 'webex status listener failed');
    }
  };

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = clock.setTimeout(resolve, ms);
      bootstrapTimer = { cancel: t.cancel, fire: resolve };
    });

  // Catalog, identity and device, retried with backoff unless the token itself is refused.
  const bootstrap = async () => {
    for (let failures = 0; ; failures++) {
      try {
        const services = await discoverServices({ http, u2cUrl: opts.u2cUrl, fallbackWdmUrl: opts.fallbackWdmUrl, logger });
        catalog = services.catalog;
        const me = await rest.getMe();
        myUuid = decodeHydraId(me.id)?.uuid ?? me.id;
        devices = createDeviceManager({ http, wdmUrl: services.wdmUrl, deviceName, logger });
        await devices.ensure();
        setStatus({ deviceRegistered: true, error: undefined });
        return devices;
      } catch (error) {
        if (!running) throw new Error('webex bot stopped');
        if (error instanceof WebexApiError && error.isAuthFailure) throw error;
        setStatus({ error: errorText(error) });
        const base = Math.min(32_000, 1_000 * 2 ** Math.min(failures, 16));
        logger.warn({ err: errorText(error), attempt: failures + 1 }, 'webex setup failed; retrying');
        await wait(Math.round(base / 2 + (base / 2) * random()));
        if (!running) throw new Error('webex bot stopped');
      }
    }
  };

  const onFrame = (frame: InboundFrame) => {
    status = { ...status, lastEventAt: clock.now().toISOString() };
    const event = activityEventSchema.safeParse(frame.data);
    if (!event.success || event.data.activity.verb !== 'cardAction') return;
    const activity = event.data.activity;
    // Across a reconnect, the old socket and the new one (and Mercury's buffered replay) can both
    // carry the same activity: each click is acted on once.
    if (handledActivities.has(activity.id)) return;
    handledActivities.add(activity.id);
    if (handledActivities.size > MAX_REMEMBERED_ACTIVITIES) handledActivities.delete(handledActivities.values().next().value as string);
    // One at a time, in arrival order: approvals must see clicks in the order people made them.
    queue = queue.then(() => handleCardAction(activity)).catch((error) => {
      logger.error({ err: errorText(error), activity_id: activity.id }, 'webex card submission not handled');
    });
  };

  const handleCardAction = async (activity: Activity) => {
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
    await opts.onCardSubmission(submission);
  };

  // The activity can outrun the REST copy; a short retry covers that and brief outages.
  const fetchAction = async (id: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await rest.getAttachmentAction(id);
      } catch (error) {
        const retriable = error instanceof WebexApiError && (error.status === undefined || error.status === 404 || error.status >= 500);
        if (!retriable || attempt >= 2 || !running) throw error;
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

  return {
    async start() {
      if (running) throw new Error('webex bot already started');
      running = true;
      deviceInUseElsewhere = false;
      setStatus({ connected: false, error: undefined });
      let manager: DeviceManager;
      try {
        manager = await bootstrap();
      } catch (error) {
        running = false;
        if (error instanceof WebexApiError) setStatus({ error: error.message });
        throw error;
      }
      if (!running) {
        // stop() came while the device was being registered: do not leave it behind.
        await manager.unregister().catch(() => undefined);
        setStatus({ deviceRegistered: false });
        throw new Error('webex bot stopped before it was ready');
      }
      mercury = createMercuryConnection({
        token: opts.token,
        agentFor,
        clock,
        logger,
        random,
        devices: manager,
        onFrame,
        onConnected: (connected) => setStatus(connected ? { connected, error: undefined } : { connected }),
        onFatal: (error, deviceInUse) => {
          running = false;
          deviceInUseElsewhere = deviceInUse;
          setStatus({ connected: false, error });
        },
      });
      await mercury.start();
    },

    async stop() {
      const wasRunning = running;
      running = false;
      bootstrapTimer?.cancel();
      bootstrapTimer?.fire();
      await mercury?.stop();
      mercury = undefined;
      if (devices && !deviceInUseElsewhere) {
        try {
          await devices.unregister();
        } catch (error) {
          logger.warn({ err: errorText(error) }, 'webex device not deleted');
        }
      }
      if (wasRunning || status.deviceRegistered) setStatus({ connected: false, deviceRegistered: false });
      await proxies.close();
    },

    status: () => ({ ...status }),

    async postMarkdown(markdown, o) {
      const posted = await rest.postMarkdown(opts.roomId, markdown, o);
      return posted.map((m) => ({ id: m.id }));
    },

    async postCard(card, fallbackMarkdown) {
      const m = await rest.postCard(opts.roomId, card, fallbackMarkdown);
      return { id: m.id };
    },
  };
}

