import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProbe } from './helpers';
import { card, FIRST_BACKOFF, useWebexBotFixture } from './webex-bot-fixture';

describe('webex bot against the local Webex fake: reconnects, replacement and rejected tokens', () => {
  const t = useWebexBotFixture();

  it('registers again when the device vanished and its socket URL answers 404', async () => {
    const bot = t.makeBot();
    await bot.start();
    const [first] = t.fake.devices();
    t.fake.deleteDevice(first!.id);
    t.fake.dropSocket(1006);
    await t.disconnected();

    await t.clock.fire(FIRST_BACKOFF); // upgrade → 404 → POST a new device
    await t.clock.fire(FIRST_BACKOFF * 2);
    await t.connected();

    expect(t.fake.devices()).toHaveLength(1);
    expect(t.fake.devices()[0]?.id).not.toBe(first!.id);
    const posted = await bot.postCard(card(), 'Approval needed');
    t.fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });
    await t.probe.until(() => t.probe.submissions.length === 1);
  });

  it.each([
    [1000, 'idle'],
    [1006, ''],
    [1011, 'server error'],
  ])('reconnects after the server closes with %i %s, and a later click still arrives', async (code, reason) => {
    const bot = t.makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    t.fake.dropSocket(code, reason);
    await t.disconnected();
    await t.clock.fire(FIRST_BACKOFF);
    await t.connected();

    expect(t.fake.socketAttempts()).toBe(2);
    expect(bot.status().error).toBeUndefined();
    t.fake.clickCardButton({ messageId: posted.id, title: 'Deny', personEmail: 'alice@example.com' });
    await t.probe.until(() => t.probe.submissions.length === 1);
    expect(t.probe.submissions[0]?.inputs['decision']).toBe('DENIED');
  });

  it('closes a socket whose pongs stop and reconnects', async () => {
    const bot = t.makeBot();
    await bot.start();
    await t.clock.waitFor(15_000); // the first pong came back
    t.fake.answerPings(false);

    await t.clock.fire(15_000); // next ping
    await t.clock.fire(14_000); // its pong never comes
    await t.disconnected();
    t.fake.answerPings(true);
    await t.clock.fire(FIRST_BACKOFF);
    await t.connected();

    expect(t.fake.connections().map((c) => c.authorized)).toEqual([true, true]);
    expect(bot.status().error).toBeUndefined();
  });

  it('stops with a health error when another client replaces its socket (4000) and leaves the device alone', async () => {
    const first = t.makeBot();
    await first.start();
    const secondProbe = createProbe();
    const second = t.makeBot({ onStatus: secondProbe.onStatus, onCardSubmission: secondProbe.onCardSubmission });
    await second.start();

    await t.probe.until(() => t.probe.last()?.error !== undefined);
    expect(t.probe.last()).toMatchObject({ connected: false, error: expect.stringMatching(/replaced.*not reconnecting/) });
    await t.fake.until(() => t.fake.connections()[0]?.closed !== undefined);
    expect(t.fake.connections()[0]?.closed).toEqual({ code: 4000, reason: 'replaced' });
    expect(t.clock.pending().filter((ms) => ms <= 32_000 && ms !== 14_000 && ms !== 15_000)).toEqual([]);

    await first.stop();
    expect(t.fake.devices()).toHaveLength(1); // still the second relay's device
    expect(second.status().connected).toBe(true);
  });

  it('stops after a server-side 4000 replaced without reconnecting', async () => {
    const bot = t.makeBot();
    await bot.start();
    t.fake.dropSocket(4000, 'replaced');
    await t.probe.until(() => t.probe.last()?.error !== undefined);

    expect(bot.status()).toMatchObject({ connected: false, error: expect.stringContaining('replaced') });
    expect(t.clock.pending()).toEqual([]);
    expect(t.fake.socketAttempts()).toBe(1);
  });

  it('refuses a bad token with a clear error, no fallback and no retries', async () => {
    const bad = `wrong-${randomUUID()}`;
    const bot = t.makeBot({ token: bad });

    const error = await bot.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );

    expect(error?.message).toMatch(/HTTP 401.*MSG_BOT_TOKEN/);
    expect(error?.message).not.toContain(bad);
    expect(bot.status()).toMatchObject({ configured: true, connected: false, error: error?.message });
    expect(t.fake.requests()).toHaveLength(1);
    expect(t.fake.socketAttempts()).toBe(0);
    expect(t.clock.pending()).toEqual([]);
    expect(t.log.text()).not.toContain(bad);
  });

  it('stops on 4401 when the token is revoked while running, after a single attempt', async () => {
    const bot = t.makeBot();
    await bot.start();
    t.fake.revokeToken();
    t.fake.dropSocket(1006);
    await t.disconnected();
    await t.clock.fire(FIRST_BACKOFF);

    await t.probe.until(() => t.probe.last()?.error !== undefined);
    expect(bot.status()).toMatchObject({ connected: false, error: expect.stringMatching(/4401.*MSG_BOT_TOKEN/) });
    await t.fake.until(() => t.fake.connections().every((c) => c.closed));
    expect(t.fake.connections().map((c) => c.closed?.code)).toEqual([1006, 4401]);
    expect(t.clock.pending()).toEqual([]);
  });

  it('moves to a new socket on a server shutdown notice without dropping events', async () => {
    const bot = t.makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');
    const before = t.probe.statuses.length;

    t.fake.sendShutdown();
    await t.fake.until(() => t.fake.connections().length === 2 && t.fake.connections()[0]?.closed !== undefined && t.fake.connections()[1]?.authorized === true);

    expect(t.probe.statuses.slice(before).filter((s) => !s.connected)).toEqual([]);
    const click = t.fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });
    expect(click.envelopeIds).toHaveLength(1);
    await t.probe.until(() => t.probe.submissions.length === 1);
    expect(bot.status()).toMatchObject({ connected: true });
    expect(bot.status().error).toBeUndefined();
  });
});
