import type { Logger } from 'pino';
import type { ChannelHost } from '../../../core/approvals/operator-channel';
import { blockActionsSchema, buttonValueSchema, userInfoSchema, type Envelope } from './schemas';
import { say } from './wording';
import { escapeMrkdwn } from './blocks';
import { errorText } from '../../../core/error-body';

/** Slack markdown from the relay's: bold is one star there, and `<`/`&` are markup. */
export const mrkdwn = (markdown: string) => escapeMrkdwn(markdown).replace(/\*\*/g, '*');

/** Who "ours" is, from Slack itself: the bot token's workspace (or grid) and the app it belongs to. */
export interface SlackIdentity {
  app: string;
  team: string;
  enterprise?: string;
}

type BotCall = (method: string, body: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Asks Slack which app and workspace the bot token is: only clicks from those are counted. */
export async function identify(bot: BotCall): Promise<SlackIdentity> {
  const me = await bot('auth.test', {});
  const botInfo = await bot('bots.info', { bot: me.bot_id });
  const app = (botInfo.bot as { app_id?: string } | undefined)?.app_id;
  if (typeof me.team_id !== 'string' || !app) throw new Error('slack: auth.test/bots.info did not name the workspace and app');
  return { app, team: me.team_id, ...(typeof me.enterprise_id === 'string' && me.enterprise_id ? { enterprise: me.enterprise_id } : {}) };
}

export interface SlackClickDeps {
  /** The channel's name, as the decision records it. */
  name: string;
  bot: BotCall;
  channelId: string;
  approver(person: { slackId: string; email?: string }): boolean | { email: string };
  logger: Logger;
  host(): ChannelHost | undefined;
  ours(): SlackIdentity | undefined;
}

/**
 * A button click, judged: our app, our workspace, our channel, a person on the allow-list; then
 * decided through the host with the request the message carried, and answered to that person only.
 */
export function createSlackClicks(deps: SlackClickDeps): (envelope: Envelope) => Promise<void> {
  const { bot, channelId, logger } = deps;
  const whisper = (user: string, text: string) =>
    bot('chat.postEphemeral', { channel: channelId, user, text: mrkdwn(text) }).catch((error: unknown) => logger.warn({ err: errorText(error) }, 'slack reply not posted'));

  async function emailOf(userId: string): Promise<string | undefined> {
    try {
      const info = userInfoSchema.parse(await bot('users.info', { user: userId }));
      return info.user.deleted ? undefined : info.user.profile?.email?.toLowerCase();
    } catch (error) {
      logger.warn({ err: errorText(error) }, 'slack users.info failed; the click is judged by member id only');
      return undefined;
    }
  }

  return async function onInteraction(envelope) {
    const host = deps.host();
    const ours = deps.ours();
    if (envelope.type !== 'interactive') return;
    const parsed = blockActionsSchema.safeParse(envelope.payload);
    if (!parsed.success || !host || !ours) return;
    const p = parsed.data;
    const value = buttonValueSchema.safeParse(safeJson(p.actions[0]!.value));
    if (!value.success) return; // another app feature's button: not ours to judge
    const log = logger.child({ incident_id: value.data.incident_id, slack_user: p.user.id });
    // The socket is authenticated by the app token; these fields say the click is ours to count.
    const teamOk = p.team?.id === ours.team || (ours.enterprise !== undefined && p.enterprise?.id === ours.enterprise);
    const clickedIn = p.channel?.id ?? p.container?.channel_id;
    if (p.api_app_id !== ours.app || !teamOk || clickedIn !== channelId) {
      log.warn({ app: p.api_app_id, team: p.team?.id, channel: clickedIn }, 'slack click from another app, workspace or channel refused');
      if (clickedIn === channelId) await whisper(p.user.id, say.otherApp(`<@${p.user.id}>`));
      return;
    }
    const email = await emailOf(p.user.id);
    const who = email ?? `slack:${p.user.id}`;
    const allowed = deps.approver({ slackId: p.user.id, ...(email ? { email } : {}) });
    if (!allowed) {
      log.warn('slack click from a person not on the allow-list refused');
      await whisper(p.user.id, say.notAllowed(who));
      return;
    }
    const v = value.data;
    // The operator entry's own e-mail (matched by member id or by Slack's e-mail): the relay names them from it.
    const person = typeof allowed === 'object' ? allowed.email : who;
    const result = await host.decide({ channel: deps.name, incident_id: v.incident_id, request_id: v.request_id, decision: v.decision, person: { id: person } });
    if (result.status === 'already_decided') await whisper(p.user.id, say.alreadyDecided(result.incident, result.approval, who));
    else if (result.status === 'stale_request') await whisper(p.user.id, say.staleMessage(result.incident, who));
    else if (result.status === 'recorded' || result.status === 'already_approved_by_you' || result.status === 'not_allowed_by_policy') await whisper(p.user.id, say.policy(result.incident, result, who));
    else if (result.status !== 'accepted') await whisper(p.user.id, say.noActive(v.incident_id, who));
  };
}

function safeJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
