import type { Logger } from 'pino';
import type { ChannelHealth, ChannelHost, OperatorChannel } from '../../../core/approvals/operator-channel';
import { say } from './wording';
import { systemClock, type Clock } from '../../../core/clock';
import { createProxyDispatchers, NO_PROXY_SETTINGS, proxyFor, tunnelAgent, type ProxySettings } from '../../net/proxy';
import { approvalBlocks, decidedBlocks, escapeMrkdwn, quotedBlocks } from './blocks';
import { blockActionsSchema, buttonValueSchema, connectionsOpenSchema, postedMessageSchema, userInfoSchema, type Envelope, type SlackStatus } from './schemas';
import { createSocketMode } from './socket-mode';
import { createSlackWebApi } from './web-api';

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

/** Slack markdown from the relay's: bold is one star there, and `<`/`&` are markup. */
const mrkdwn = (markdown: string) => escapeMrkdwn(markdown).replace(/\*\*/g, '*');

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
  let ours: { app: string; team: string; enterprise?: string } | undefined;
  let status: SlackStatus = { configured: true, connected: false };
  let queue: Promise<void> = Promise.resolve();

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
      queue = queue.then(() => onInteraction(envelope)).catch((error: unknown) => logger.error({ err: (error as Error).message }, 'slack interaction not handled'));
    },
  });

  const whisper = (user: string, text: string) =>
    bot('chat.postEphemeral', { channel: opts.channelId, user, text: mrkdwn(text) }).catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'slack reply not posted'));

  async function emailOf(userId: string): Promise<string | undefined> {
    try {
      const info = userInfoSchema.parse(await bot('users.info', { user: userId }));
      return info.user.deleted ? undefined : info.user.profile?.email?.toLowerCase();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'slack users.info failed; the click is judged by member id only');
      return undefined;
    }
  }

  async function onInteraction(envelope: Envelope): Promise<void> {
    if (envelope.type !== 'interactive') return;
    const parsed = blockActionsSchema.safeParse(envelope.payload);
    if (!parsed.success || !host || !ours) return;
    const p = parsed.data;
    const action = p.actions[0]!;
    const value = buttonValueSchema.safeParse(safeJson(action.value));
    if (!value.success) return; // another app feature's button: not ours to judge
    const log = logger.child({ incident_id: value.data.incident_id, slack_user: p.user.id });
    // The socket is authenticated by the app token; these fields say the click is ours to count.
    const teamOk = p.team?.id === ours.team || (ours.enterprise !== undefined && p.enterprise?.id === ours.enterprise);
    const channelId = p.channel?.id ?? p.container?.channel_id;
    if (p.api_app_id !== ours.app || !teamOk || channelId !== opts.channelId) {
      log.warn({ app: p.api_app_id, team: p.team?.id, channel: channelId }, 'slack click from another app, workspace or channel refused');
      if (channelId === opts.channelId) await whisper(p.user.id, say.otherApp(`<@${p.user.id}>`));
      return;
    }
    const email = await emailOf(p.user.id);
    const who = email ?? `slack:${p.user.id}`;
    const allowed = opts.approver({ slackId: p.user.id, ...(email ? { email } : {}) });
    if (!allowed) {
      log.warn('slack click from a person not on the allow-list refused');
      await whisper(p.user.id, say.notAllowed(who));
      return;
    }
    const v = value.data;
    // The operator entry's own e-mail (matched by member id or by Slack's e-mail): the relay names them from it.
    const person = typeof allowed === 'object' ? allowed.email : who;
    const result = await host.decide({ channel: SLACK_CHANNEL, incident_id: v.incident_id, request_id: v.request_id, decision: v.decision, person: { id: person } });
    if (result.status === 'already_decided') await whisper(p.user.id, say.alreadyDecided(result.incident, result.approval, who));
    else if (result.status === 'stale_request') await whisper(p.user.id, say.staleMessage(result.incident, who));
    else if (result.status === 'recorded' || result.status === 'already_approved_by_you' || result.status === 'not_allowed_by_policy') await whisper(p.user.id, say.policy(result.incident, result, who));
    else if (result.status !== 'accepted') await whisper(p.user.id, say.noActive(v.incident_id, who));
  }

  /** On a team, called each time this relay becomes the leader; the socket opens once Slack says who we are. */
  async function start(): Promise<void> {
    // Who "ours" is, from Slack itself: the bot token's workspace and the app it belongs to.
    const me = await bot('auth.test', {});
    const botInfo = await bot('bots.info', { bot: me.bot_id });
    const app = (botInfo.bot as { app_id?: string } | undefined)?.app_id;
    if (typeof me.team_id !== 'string' || !app) throw new Error('slack: auth.test/bots.info did not name the workspace and app');
    ours = { app, team: me.team_id, ...(typeof me.enterprise_id === 'string' && me.enterprise_id ? { enterprise: me.enterprise_id } : {}) };
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

function safeJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
