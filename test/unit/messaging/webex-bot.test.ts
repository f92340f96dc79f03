import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApprovalCard } from '../../../src/messaging/approval-card';
import { createWebexBot, type WebexBot, type WebexBotOptions } from '../../../src/messaging/webex-bot';
import { newRoomId, startWebexFake, type WebexFake } from '../../fakes/webex';
import { captureLogger, createManualClock, createProbe } from './helpers';

const TOKEN = `bot-token-${randomUUID()}`;
// random() = 0 makes every backoff exactly half its base: 500 ms, then 1000 ms, …
const FIRST_BACKOFF = 500;

const card = (incident_id = 'INC-20250101T000000Z') =>
  buildApprovalCard({
    incident_id,
    request_id: 'REQ-TEST-0001',
    alert_def_id: 'AD000002',
    device: 'rtr-edge-01',
    summary: 'BGP neighbor 10.0.0.2 is administratively down; re-enable it.',
    commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'],
  });

describe('webex bot against the local Webex fake', () => {
  let roomId: string;
  let fake: WebexFake;
  let clock: ReturnType<typeof createManualClock>;
  let probe: ReturnType<typeof createProbe>;
  let log: ReturnType<typeof captureLogger>;
  const bots: WebexBot[] = [];

  const makeBot = (over: Partial<WebexBotOptions> = {}) => {
    const bot = createWebexBot({
      token: TOKEN,
      roomId,
      u2cUrl: fake.u2cUrl,
      apiUrl: fake.apiUrl,
      logger: log.logger,
      clock,
      random: () => 0,
      onCardSubmission: probe.onCardSubmission,
      onStatus: probe.onStatus,
      ...over,
    });
    bots.push(bot);
    return bot;
  };

  const connected = () => probe.until(() => probe.last()?.connected === true);
  const disconnected = () => probe.until(() => probe.last()?.connected === false);

  beforeEach(async () => {
    roomId = newRoomId();
    fake = await startWebexFake({ token: TOKEN, roomId });
    clock = createManualClock();
    probe = createProbe();
    log = captureLogger();
  });

  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.stop();
    await fake.stop();
    expect(log.text()).not.toContain(TOKEN);
  });

  it('registers through the U2C catalog, authorizes the socket with the token and acks frames', async () => {
    const bot = makeBot();
    await bot.start();

    const paths = fake.requests().map((r) => `${r.method} ${r.path}`);
    expect(paths.slice(0, 4)).toEqual([
      'GET /u2c/api/v1/catalog',
      'GET /v1/people/me',
      'GET /wdm/api/v1/devices',
      'POST /wdm/api/v1/devices',
    ]);
    expect(fake.devices().map((d) => d.name)).toEqual(['fault-relay']);
    const [conn] = fake.connections();
    expect(conn?.query).toMatchObject({ outboundWireFormat: 'text', bufferStates: 'true', aliasHttpStatus: 'true' });
    expect(Number(conn?.query['clientTimestamp'])).toBe(clock.now().getTime());
    expect(fake.authFrames()).toEqual([
      expect.objectContaining({ type: 'authorization', id: expect.any(String), data: { token: `Bearer ${TOKEN}` } }),
    ]);
    // buffer_state and the first pong both carry ids and must be acknowledged.
    await fake.until(() => fake.acks().length >= 2);
    expect(bot.status()).toEqual({ configured: true, connected: true, deviceRegistered: true, lastEventAt: expect.any(String) });
  });

  it('delivers a card click with the plaintext inputs from REST and the person e-mail, and acks it', async () => {
    const bot = makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    const click = fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com', inputs: { reason: 'window open' } });

    await probe.until(() => probe.submissions.length === 1);
    expect(probe.submissions[0]).toEqual({
      actionId: click.actionId,
      messageId: posted.id,
      roomId,
      personId: expect.any(String),
      personEmail: 'alice@example.com',
      inputs: {
        callback_keyword: 'fault_approval',
        alert_def_id: 'AD000002',
        incident_id: 'INC-20250101T000000Z',
        request_id: 'REQ-TEST-0001',
        decision: 'APPROVED',
        reason: 'window open',
      },
      created: expect.any(String),
    });
    // The socket only carried a JWE: the plaintext can only have come from REST.
    expect(fake.requests().some((r) => r.method === 'GET' && r.path === `/v1/attachment/actions/${click.actionId}`)).toBe(true);
    await fake.until(() => fake.acks().some((a) => a.messageId === click.envelopeIds[0]));
  });

  it('ignores its own clicks and submissions of other cards, in arrival order', async () => {
    const bot = makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: fake.bot.email });
    fake.submitCard({ messageId: posted.id, personEmail: 'carol@example.com', inputs: { callback_keyword: 'survey', answer: 'yes' } });
    fake.clickCardButton({ messageId: posted.id, title: 'Deny', personEmail: 'bob@example.com' });

    await probe.until(() => probe.submissions.length === 1);
    expect(probe.submissions.map((s) => [s.personEmail, s.inputs['decision']])).toEqual([['bob@example.com', 'DENIED']]);
  });

  it('reuses the device that carries its name, refreshing it instead of registering another', async () => {
    const existing = fake.addDevice({ name: 'fault-relay' });
    fake.addDevice({ name: 'someone-else' });
    await makeBot().start();

    const wdm = fake.requests().filter((r) => r.path.startsWith('/wdm/'));
    expect(wdm.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /wdm/api/v1/devices', `PUT /wdm/api/v1/devices/${existing.id}`]);
    expect(fake.connections()[0]?.deviceId).toBe(existing.id);
    expect(fake.devices()).toHaveLength(2);
  });

  it('registers again when the refresh answers 404', async () => {
    const stale = fake.addDevice({ name: 'fault-relay' });
    fake.failNextDeviceRefresh(404);
    const bot = makeBot();
    await bot.start();

    const wdm = fake.requests().filter((r) => r.path.startsWith('/wdm/'));
    expect(wdm.map((r) => r.method)).toEqual(['GET', 'PUT', 'POST']);
    expect(fake.connections()[0]?.deviceId).not.toBe(stale.id);
    expect(bot.status()).toMatchObject({ connected: true, deviceRegistered: true });
  });

  it('registers again when the device vanished and its socket URL answers 404', async () => {
    const bot = makeBot();
    await bot.start();
    const [first] = fake.devices();
    fake.deleteDevice(first!.id);
    fake.dropSocket(1006);
    await disconnected();

    await clock.fire(FIRST_BACKOFF); // upgrade → 404 → POST a new device
    await clock.fire(FIRST_BACKOFF * 2);
    await connected();

    expect(fake.devices()).toHaveLength(1);
    expect(fake.devices()[0]?.id).not.toBe(first!.id);
    const posted = await bot.postCard(card(), 'Approval needed');
    fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });
    await probe.until(() => probe.submissions.length === 1);
  });

  it.each([
    [1000, 'idle'],
    [1006, ''],
    [1011, 'server error'],
  ])('reconnects after the server closes with %i %s, and a later click still arrives', async (code, reason) => {
    const bot = makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    fake.dropSocket(code, reason);
    await disconnected();
    await clock.fire(FIRST_BACKOFF);
    await connected();

    expect(fake.socketAttempts()).toBe(2);
    expect(bot.status().error).toBeUndefined();
    fake.clickCardButton({ messageId: posted.id, title: 'Deny', personEmail: 'alice@example.com' });
    await probe.until(() => probe.submissions.length === 1);
    expect(probe.submissions[0]?.inputs['decision']).toBe('DENIED');
  });

  it('closes a socket whose pongs stop and reconnects', async () => {
    const bot = makeBot();
    await bot.start();
    await clock.waitFor(15_000); // the first pong came back
    fake.answerPings(false);

    await clock.fire(15_000); // next ping
    await clock.fire(14_000); // its pong never comes
    await disconnected();
    fake.answerPings(true);
    await clock.fire(FIRST_BACKOFF);
    await connected();

    expect(fake.connections().map((c) => c.authorized)).toEqual([true, true]);
    expect(bot.status().error).toBeUndefined();
  });

  it('stops with a health error when another client replaces its socket (4000) and leaves the device alone', async () => {
    const first = makeBot();
    await first.start();
    const secondProbe = createProbe();
    const second = makeBot({ onStatus: secondProbe.onStatus, onCardSubmission: secondProbe.onCardSubmission });
    await second.start();

    await probe.until(() => probe.last()?.error !== undefined);
    expect(probe.last()).toMatchObject({ connected: false, error: expect.stringMatching(/replaced.*not reconnecting/) });
    await fake.until(() => fake.connections()[0]?.closed !== undefined);
    expect(fake.connections()[0]?.closed).toEqual({ code: 4000, reason: 'replaced' });
    expect(clock.pending().filter((ms) => ms <= 32_000 && ms !== 14_000 && ms !== 15_000)).toEqual([]);

    await first.stop();
    expect(fake.devices()).toHaveLength(1); // still the second relay's device
    expect(second.status().connected).toBe(true);
  });

  it('stops after a server-side 4000 replaced without reconnecting', async () => {
    const bot = makeBot();
    await bot.start();
    fake.dropSocket(4000, 'replaced');
    await probe.until(() => probe.last()?.error !== undefined);

    expect(bot.status()).toMatchObject({ connected: false, error: expect.stringContaining('replaced') });
    expect(clock.pending()).toEqual([]);
    expect(fake.socketAttempts()).toBe(1);
  });

  it('refuses a bad token with a clear error, no fallback and no retries', async () => {
    const bad = `wrong-${randomUUID()}`;
    const bot = makeBot({ token: bad });

    const error = await bot.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );

    expect(error?.message).toMatch(/HTTP 401.*MSG_BOT_TOKEN/);
    expect(error?.message).not.toContain(bad);
    expect(bot.status()).toMatchObject({ configured: true, connected: false, error: error?.message });
    expect(fake.requests()).toHaveLength(1);
    expect(fake.socketAttempts()).toBe(0);
    expect(clock.pending()).toEqual([]);
    expect(log.text()).not.toContain(bad);
  });

  it('stops on 4401 when the token is revoked while running, after a single attempt', async () => {
    const bot = makeBot();
    await bot.start();
    fake.revokeToken();
    fake.dropSocket(1006);
    await disconnected();
    await clock.fire(FIRST_BACKOFF);

    await probe.until(() => probe.last()?.error !== undefined);
    expect(bot.status()).toMatchObject({ connected: false, error: expect.stringMatching(/4401.*MSG_BOT_TOKEN/) });
    await fake.until(() => fake.connections().every((c) => c.closed));
    expect(fake.connections().map((c) => c.closed?.code)).toEqual([1006, 4401]);
    expect(clock.pending()).toEqual([]);
  });

  it('moves to a new socket on a server shutdown notice without dropping events', async () => {
    const bot = makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');
    const before = probe.statuses.length;

    fake.sendShutdown();
    await fake.until(() => fake.connections().length === 2 && fake.connections()[0]?.closed !== undefined && fake.connections()[1]?.authorized === true);

    expect(probe.statuses.slice(before).filter((s) => !s.connected)).toEqual([]);
    const click = fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });
    expect(click.envelopeIds).toHaveLength(1);
    await probe.until(() => probe.submissions.length === 1);
    expect(bot.status()).toMatchObject({ connected: true });
    expect(bot.status().error).toBeUndefined();
  });

  it('deletes its device on stop', async () => {
    const bot = makeBot();
    await bot.start();
    const [device] = fake.devices();
    await bot.stop();

    expect(fake.devices()).toEqual([]);
    expect(fake.requests().at(-1)).toEqual({ method: 'DELETE', path: `/wdm/api/v1/devices/${device!.id}` });
    expect(bot.status()).toMatchObject({ connected: false, deviceRegistered: false });
    await fake.until(() => fake.connections()[0]?.closed !== undefined);
    expect(fake.connections()[0]?.closed).toEqual({ code: 1000, reason: 'Done' });
  });

  it('falls back to the default device service when the catalog is down', async () => {
    fake.failCatalog(503);
    const bot = makeBot({ fallbackWdmUrl: fake.wdmUrl });
    await bot.start();

    expect(bot.status().connected).toBe(true);
    expect(log.text()).toContain('using the default device service');
  });

  it('builds REST ids in the cluster the host catalog names', async () => {
    await fake.stop();
    const cluster = 'urn:TEAM:eu-central-1_k';
    roomId = newRoomId(cluster);
    fake = await startWebexFake({ token: TOKEN, roomId, cluster });
    const bot = makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });

    await probe.until(() => probe.submissions.length === 1);
    expect(probe.submissions[0]?.roomId).toBe(roomId);
  });
});
