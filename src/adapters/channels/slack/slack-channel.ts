import type { Logger } from 'pino';
import type { ChannelHealth, ChannelHost, OperatorChannel } from '../../../core/approvals/operator-channel';
import { systemClock, type Clock } from '../../../core/clock';
import { createProxyDispatchers, NO_PROXY_SETTINGS, proxyFor, tunnelAgent, type ProxySettings } from '../../net/proxy';
import { approvalBlocks, decidedBlocks, quotedBlocks } from './blocks';
import { createSlackClicks, identify, mrkdwn, type SlackIdentity } from './clicks';
import { connectionsOpenSchema, postedMessageSchema, type SlackStatus } from './schemas';
import { createSocketMode } from './socket-mode';
import { createSlackWebApi } from './web-api';
import { errorText } from '../../../core/error-body';

export const SLACK_CHANNEL = 'slack';

export interface SlackChannelOptions {
  appToken: string;
  botToken: string;
  channelId: string;
  apiUrl: string;
  /** The allow-list (OPERATORS_FILE approvers): by Slack member id, else by the e-mail users.info gives; their entry's own e-mail when known, so the decision names them. */
  approver(person: { slackId: string; email?: string }): boolean | { email: string };
  logger: Logger;
  clock?: Clock;
  random?: () => number;
  pingIntervalMs?: number;
  /** HTTPS_PROXY / NO_PROXY: the Web API and the websocket both go through it, as Webex's do. */
  proxy?: ProxySettings;
}

export interface SlackChannel extends OperatorChannel {
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): SlackStatus;
  readonly connection: NonNullable<OperatorChannel['connection']>;
}

/**
 * Slack as an operator channel over Socket Mode (outbound only). It owns the Block Kit message,
 * Slack's ids and the check of who clicked: our app, our workspace, our channel, a person on the
 * allow-list. Nothing a click says about itself is trusted beyond that.
 */
export function createSlackChannel(opts: SlackChannelOptions): SlackChannel {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger.child({ component: 'slack' });
  const proxy = opts.proxy ?? NO_PROXY_SETTINGS;
  const proxies = createProxyDispatchers(proxy);
  const call = createSlackWebApi({ apiUrl: opts.apiUrl, clock, dispatcherFor: (url) => proxies.for(url) });
  const bot = (method: string, body: Record<string, unknown>) => call(method, opts.botToken, body);
  let host: ChannelHost | undefined;
  let ours: SlackIdentity | undefined;
  let status: SlackStatus = { configured: true, connected: false };
  let queue: Promise<void> = Promise.resolve();
  const onInteraction = createSlackClicks({ name: SLACK_CHANNEL, bot, channelId: opts.channelId, approver: opts.approver, logger, host: () => host, ours: () => ours });

  const socket = createSocketMode({
    openUrl: async () => connectionsOpenSchema.parse(await call('apps.connections.open', opts.appToken)).url,
    clock,
    logger,
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.pingIntervalMs ? { pingIntervalMs: opts.pingIntervalMs } : {}),
    agentFor: (url) => {
      const through = proxyFor(url, proxy);
      return through ? tunnelAgent(through) : undefined;
    },
    onStatus: (patch) => {
      const next: SlackStatus = { ...status, ...patch };
      for (const k of Object.keys(next) as (keyof SlackStatus)[]) if (next[k] === undefined) delete next[k];
      status = next;
    },
    // The envelope is acknowledged already; clicks are decided one at a time, in the order people made them.
    onEnvelope: (envelope) => {
      queue = queue.then(() => onInteraction(envelope)).catch((error: unknown) => logger.error({ err: errorText(error) }, 'slack interaction not handled'));
    },
  });

  /** On a team, called each time this relay becomes the leader; the socket opens once Slack says who we are. */
  async function start(): Promise<void> {
    ours = await identify(bot);
    await socket.start();
  }

  return {
    name: SLACK_CHANNEL,
    async ask(request) {
      const posted = postedMessageSchema.parse(await bot('chat.postMessage', { channel: opts.channelId, ...approvalBlocks(request) }));
      return { message_id: posted.ts };
    },
    async tell(markdown, quoted) {
      const text = mrkdwn(markdown);
      await bot('chat.postMessage', { channel: opts.channelId, text, ...(quoted ? { blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, ...quotedBlocks(quoted.label, quoted.text)] } : {}) });
    },
    async acknowledge(incident, approval) {
      const ts = incident.approval_request?.channel_messages?.[SLACK_CHANNEL];
      const decided = decidedBlocks(incident, approval);
      if (ts) await bot('chat.update', { channel: opts.channelId, ts, ...decided });
      else await bot('chat.postMessage', { channel: opts.channelId, text: decided.text });
    },
    attach(h) {
      host = h;
    },
    start,
    async stop() {
      await socket.stop();
      await proxies.close();
    },
    status: () => ({ ...status }),
    connection: { connect: start, disconnect: () => socket.stop(), health: () => healthOf(status) },
  };
}

/** The port's view of Slack's status: the degraded code and sentence, the foreign-connections warning. */
function healthOf(s: SlackStatus): ChannelHealth {
  return {
    connected: s.connected,
    ...(s.degraded ? { degraded: { reason: s.degradedReason ?? 'stopped', message: s.degraded } } : {}),
    ...(s.warning ? { warning: { reason: 'other_connections', message: s.warning } } : {}),
    ...(s.error ? { error: s.error } : {}),
    ...(s.lastEventAt ? { last_event_at: s.lastEventAt } : {}),
  };
}
