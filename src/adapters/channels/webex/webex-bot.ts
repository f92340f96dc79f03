import type { Logger } from 'pino';
import { decodeHydraId } from './hydra-id';
import { createCardActions } from './card-actions';
import { createMercuryConnection, type MercuryConnection } from './mercury';
import { createWebexRest, type WebexRest } from './rest';
import type { AdaptiveCard, CardSubmission, MessagingStatus, ServiceCatalog } from './schemas';
import { systemClock, type Clock } from '../../../core/clock';
import { discoverServices } from './u2c';
import { createDeviceManager, type DeviceManager } from './wdm';
import { createWebexHttp, WebexApiError, type WebexHttp } from './webex-http';
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

interface BootstrapDeps {
  http: WebexHttp;
  rest: WebexRest;
  opts: Pick<WebexBotOptions, 'u2cUrl' | 'fallbackWdmUrl'>;
  deviceName: string;
  logger: Logger;
  random: () => number;
  wait(ms: number): Promise<void>;
  running(): boolean;
  setStatus(patch: Partial<MessagingStatus>): void;
}

/** Finds the services, the bot's own id and its device (registered or reused), retrying until it has them or is stopped. */
async function bootstrapBot(deps: BootstrapDeps): Promise<{ catalog: ServiceCatalog; myUuid: string; devices: DeviceManager }> {
  const { http, rest, logger } = deps;
  for (let failures = 0; ; failures++) {
    try {
      const services = await discoverServices({ http, u2cUrl: deps.opts.u2cUrl, fallbackWdmUrl: deps.opts.fallbackWdmUrl, logger });
      const me = await rest.getMe();
      const devices = createDeviceManager({ http, wdmUrl: services.wdmUrl, deviceName: deps.deviceName, logger });
      await devices.ensure();
      deps.setStatus({ deviceRegistered: true, error: undefined });
      return { catalog: services.catalog, myUuid: decodeHydraId(me.id)?.uuid ?? me.id, devices };
    } catch (error) {
      if (!deps.running()) throw new Error('webex bot stopped');
      if (error instanceof WebexApiError && error.isAuthFailure) throw error;
      deps.setStatus({ error: errorText(error) });
      const base = Math.min(32_000, 1_000 * 2 ** Math.min(failures, 16));
      logger.warn({ err: errorText(error), attempt: failures + 1 }, 'webex setup failed; retrying');
      await deps.wait(Math.round(base / 2 + (base / 2) * deps.random()));
      if (!deps.running()) throw new Error('webex bot stopped');
    }
  }
}

/** Settings the bot cannot start without, refused at once with the setting's name. */
function checkOptions(opts: WebexBotOptions): void {
  if (!opts.token.trim()) throw new Error('webex bot: token is empty (MSG_BOT_TOKEN)');
  if (!opts.roomId.trim()) throw new Error('webex bot: roomId is empty (MSG_ROOM_ID)');
  for (const [name, value] of [
    ['u2cUrl (MSG_U2C_URL)', opts.u2cUrl],
    ['apiUrl (MSG_API_URL)', opts.apiUrl],
  ] as const) {
    if (!URL.canParse(value)) throw new Error(`webex bot: ${name} is not a URL`);
  }
}

export function createWebexBot(opts: WebexBotOptions): WebexBot {
  checkOptions(opts);

  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const deviceName = opts.deviceName ?? 'fault-relay';
  const logger = opts.logger.child({ component: 'webex' });
  const { proxies, agentFor, http, rest } = transport(opts, clock, random);

  let status: MessagingStatus = { configured: true, connected: false, deviceRegistered: false };
  let catalog: ServiceCatalog = { serviceLinks: {}, hostCatalog: {} };
  let myUuid: string | undefined;
  let devices: DeviceManager | undefined;
  let mercury: MercuryConnection | undefined;
  let deviceInUseElsewhere = false;
  let running = false;
  let bootstrapTimer: { cancel(): void; fire(): void } | undefined;

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
    const found = await bootstrapBot({ http, rest, opts, deviceName, logger, random, wait, running: () => running, setStatus });
    ({ catalog, myUuid, devices } = found);
    return found.devices;
  };

  const onFrame = createCardActions({
    rest,
    clock,
    logger,
    self: () => ({ ...(myUuid ? { uuid: myUuid } : {}), catalog }),
    running: () => running,
    onEvent: () => (status = { ...status, lastEventAt: clock.now().toISOString() }),
    onCardSubmission: opts.onCardSubmission,
  });

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
    ...roomPosts(rest, opts.roomId),
  };
}

/** Every outbound connection honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY: REST and the websocket alike. */
function transport(opts: WebexBotOptions, clock: Clock, random: () => number) {
  const proxy = opts.proxy ?? NO_PROXY_SETTINGS;
  const proxies = createProxyDispatchers(proxy);
  const agentFor = (url: string) => {
    const through = proxyFor(url, proxy);
    return through ? tunnelAgent(through) : undefined;
  };
  const http = createWebexHttp(opts.token, { clock, random, dispatcherFor: (url) => proxies.for(url) });
  return { proxies, agentFor, http, rest: createWebexRest({ http, apiUrl: opts.apiUrl }) };
}

/** Messages and cards in the bot's one room, over REST (no websocket needed: a team follower posts too). */
function roomPosts(rest: WebexRest, roomId: string): Pick<WebexBot, 'postMarkdown' | 'postCard'> {
  return {
    async postMarkdown(markdown, o) {
      const posted = await rest.postMarkdown(roomId, markdown, o);
      return posted.map((m) => ({ id: m.id }));
    },
    async postCard(card, fallbackMarkdown) {
      const m = await rest.postCard(roomId, card, fallbackMarkdown);
      return { id: m.id };
    },
  };
}

