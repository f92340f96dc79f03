import type { OpenFailure } from './mercury-socket';

/** What to do after a socket closed or failed to open. */
export type Next =
  | { action: 'reconnect' }
  | { action: 'refresh-device' }
  | { action: 'register-device' }
  /** `deviceInUse`: another client holds our device now, so it must not be deleted. */
  | { action: 'stop'; error: string; deviceInUse?: boolean };

// The reasons Webex (and our own pong checks) use for closes that are routine.
const ROUTINE_1000_REASONS = ['idle', 'done (forced)', 'pong not received', 'pong mismatch'];

/** Close of a socket that was ready (the SDK's rules, with the bot's fatal cases spelled out). */
export function nextAfterClose(code: number, reason: string, afterShutdown: boolean): Next {
  const why = `${code}${reason ? ` '${reason}'` : ''}`;
  switch (code) {
    case 1001:
    case 1005:
    case 1006:
    case 1011:
      return { action: 'reconnect' };
    case 1000:
    case 3050:
      return ROUTINE_1000_REASONS.includes(reason.toLowerCase())
        ? { action: 'reconnect' }
        : { action: 'stop', error: `Webex closed the websocket (${why}); not reconnecting` };
    case 4000:
      // Only "replaced" means another connection of the same device took over; any other 4000 is a
      // server-side reset to reconnect from.
      return /replac/i.test(reason)
        ? { action: 'stop', error: `Webex replaced this websocket (${why}): another client uses the same device; not reconnecting`, deviceInUse: true }
        : { action: 'reconnect' };
    case 4001:
      // After a server `shutdown` the old socket is retired with 4001: routine then.
      return afterShutdown
        ? { action: 'reconnect' }
        : { action: 'stop', error: `Webex replaced this websocket (${why}); not reconnecting`, deviceInUse: true };
    case 4401:
      return { action: 'stop', error: `Webex refused the bot token on the websocket (${why}); check MSG_BOT_TOKEN` };
    case 4403:
      return { action: 'stop', error: `Webex forbids this bot the websocket (${why})` };
    default:
      return { action: 'stop', error: `Webex closed the websocket (${why}); not reconnecting` };
  }
}

/** A socket that never became ready. */
export function nextAfterOpenFailure(f: OpenFailure): Next {
  if (f.kind === 'http') {
    if (f.status === 404) return { action: 'register-device' };
    if (f.status === 401) return { action: 'stop', error: 'Webex refused the bot token on the websocket (HTTP 401); check MSG_BOT_TOKEN' };
    if (f.status === 403) return { action: 'stop', error: 'Webex forbids this bot the websocket (HTTP 403)' };
    return { action: 'reconnect' };
  }
  if (f.kind === 'closed') {
    if (f.code === 4400) return { action: 'stop', error: `Webex rejected the websocket request (4400 ${f.reason})` };
    if (f.code === 4401) return { action: 'stop', error: 'Webex refused the bot token on the websocket (4401); check MSG_BOT_TOKEN' };
    if (f.code === 4403) return { action: 'stop', error: 'Webex forbids this bot the websocket (4403)' };
    if (f.code === 1005) return { action: 'refresh-device' };
  }
  return { action: 'reconnect' };
}
