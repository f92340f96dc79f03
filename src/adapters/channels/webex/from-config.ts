import type { ChannelFactory } from '../channel-factory';
import { createWebexBot } from './webex-bot';
import { createWebexChannel, WEBEX_CHANNEL, type WebexChannel } from './webex-channel';

/**
 * The Webex channel from MSG_* settings, or none: the bot (its device, its Mercury websocket, its
 * REST client) in the room MSG_ROOM_ID, whose card clicks go straight to the channel that posted the cards.
 */
export const webexChannel = {
  name: WEBEX_CHANNEL,
  fromConfig(config, { logger, clock, proxy }): WebexChannel | undefined {
    const { MSG_BOT_TOKEN: token, MSG_ROOM_ID: roomId } = config;
    if (!token || !roomId) return undefined;
    return createWebexChannel({
      room: (onCardSubmission) =>
        createWebexBot({
          token,
          roomId,
          u2cUrl: config.MSG_U2C_URL,
          apiUrl: config.MSG_API_URL,
          logger: logger.child({ component: 'webex' }),
          ...(proxy ? { proxy } : {}),
          ...(clock ? { clock } : {}),
          onCardSubmission,
        }),
      roomId,
      approvers: config.MSG_APPROVERS,
      logger,
    });
  },
} satisfies ChannelFactory;
