import { resolve } from 'node:path';
import { openOperatorsFile } from '../../../core/operators/operators';
import type { ChannelFactory } from '../channel-factory';
import { createSlackChannel, SLACK_CHANNEL, type SlackChannel } from './slack-channel';

/**
 * The Slack channel from SLACK_* settings, or none. Who may decide is OPERATORS_FILE's approvers,
 * by Slack member id or by the e-mail Slack gives for them; without the file nobody can decide
 * in Slack (asked and told only), since Slack cannot vouch for anyone on its own.
 */
export const slackChannel = {
  name: SLACK_CHANNEL,
  fromConfig(config, { logger, clock, proxy }): SlackChannel | undefined {
    if (!config.SLACK_APP_TOKEN || !config.SLACK_BOT_TOKEN || !config.SLACK_CHANNEL_ID) return undefined;
    const operators = config.OPERATORS_FILE ? openOperatorsFile(resolve(config.OPERATORS_FILE), logger) : undefined;
    if (!operators) logger.warn('Slack is configured without OPERATORS_FILE: approval requests are posted there, but no click can decide');
    return createSlackChannel({
      appToken: config.SLACK_APP_TOKEN,
      botToken: config.SLACK_BOT_TOKEN,
      channelId: config.SLACK_CHANNEL_ID,
      apiUrl: config.SLACK_API_URL,
      approver: ({ slackId, email }) => {
        const op = operators?.bySlackId?.(slackId) ?? (email ? operators?.byEmail(email) : undefined);
        return op?.role === 'approver' ? { email: op.email } : false;
      },
      logger,
      ...(clock ? { clock } : {}),
      ...(proxy ? { proxy } : {}),
    });
  },
} satisfies ChannelFactory;
