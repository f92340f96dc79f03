import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { createWebexBot, type WebexBot, type WebexBotOptions } from '../../../src/adapters/channels/webex/webex-bot';
import { newRoomId, startWebexFake, type WebexFake } from '../../fakes/webex';
import { captureLogger, createManualClock, createProbe } from './helpers';

export const TOKEN = `bot-token-${randomUUID()}`;
// random() = 0 makes every backoff exactly half its base: 500 ms, then 1000 ms, …
export const FIRST_BACKOFF = 500;

export const card = (incident_id = 'INC-20250101T000000Z') =>
  buildApprovalCard({
    incident_id,
    request_id: 'REQ-TEST-0001',
    alert_def_id: 'AD000002',
    device: 'rtr-edge-01',
    summary: 'BGP neighbor 10.0.0.2 is administratively down; re-enable it.',
    commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'],
  });

/** Fresh per test; a test may replace `fake` and `roomId` (another cluster) before making a bot. */
export interface WebexBotFixture {
  roomId: string;
  fake: WebexFake;
  clock: ReturnType<typeof createManualClock>;
  probe: ReturnType<typeof createProbe>;
  log: ReturnType<typeof captureLogger>;
  /** A bot wired to the fake, the manual clock and the probe; stopped after the test. */
  makeBot(over?: Partial<WebexBotOptions>): WebexBot;
  connected(): Promise<void>;
  disconnected(): Promise<void>;
}

/**
 * Registers the hooks of the calling describe block: a local Webex fake per test, and after it
 * every bot stopped and the token proven absent from the logs.
 */
export function useWebexBotFixture(): WebexBotFixture {
  const bots: WebexBot[] = [];
  // The per-test fields are filled by beforeEach, before any test reads them.
  const t = {
    makeBot(over: Partial<WebexBotOptions> = {}) {
      const bot = createWebexBot({
        token: TOKEN,
        roomId: t.roomId,
        u2cUrl: t.fake.u2cUrl,
        apiUrl: t.fake.apiUrl,
        logger: t.log.logger,
        clock: t.clock,
        random: () => 0,
        onCardSubmission: t.probe.onCardSubmission,
        onStatus: t.probe.onStatus,
        ...over,
      });
      bots.push(bot);
      return bot;
    },
    connected: () => t.probe.until(() => t.probe.last()?.connected === true),
    disconnected: () => t.probe.until(() => t.probe.last()?.connected === false),
  } as WebexBotFixture;

  beforeEach(async () => {
    t.roomId = newRoomId();
    t.fake = await startWebexFake({ token: TOKEN, roomId: t.roomId });
    t.clock = createManualClock();
    t.probe = createProbe();
    t.log = captureLogger();
  });

  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.stop();
    await t.fake.stop();
    expect(t.log.text()).not.toContain(TOKEN);
  });

  return t;
}
