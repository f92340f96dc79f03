import { describe, expect, it } from 'vitest';
import { newRoomId, startWebexFake } from '../../fakes/webex';
import { card, TOKEN, useWebexBotFixture } from './webex-bot-fixture';

describe('webex bot against the local Webex fake: registration, devices and card clicks', () => {
  const t = useWebexBotFixture();

  it('registers through the U2C catalog, authorizes the socket with the token and acks frames', async () => {
    const bot = t.makeBot();
    await bot.start();

    const paths = t.fake.requests().map((r) => `${r.method} ${r.path}`);
    expect(paths.slice(0, 4)).toEqual([
      'GET /u2c/api/v1/catalog',
      'GET /v1/people/me',
      'GET /wdm/api/v1/devices',
      'POST /wdm/api/v1/devices',
    ]);
    expect(t.fake.devices().map((d) => d.name)).toEqual(['fault-relay']);
    const [conn] = t.fake.connections();
    expect(conn?.query).toMatchObject({ outboundWireFormat: 'text', bufferStates: 'true', aliasHttpStatus: 'true' });
    expect(Number(conn?.query['clientTimestamp'])).toBe(t.clock.now().getTime());
    expect(t.fake.authFrames()).toEqual([
      expect.objectContaining({ type: 'authorization', id: expect.any(String), data: { token: `Bearer ${TOKEN}` } }),
    ]);
    // buffer_state and the first pong both carry ids and must be acknowledged.
    await t.fake.until(() => t.fake.acks().length >= 2);
    expect(bot.status()).toEqual({ configured: true, connected: true, deviceRegistered: true, lastEventAt: expect.any(String) });
  });

  it('delivers a card click with the plaintext inputs from REST and the person e-mail, and acks it', async () => {
    const bot = t.makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    const click = t.fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com', inputs: { reason: 'window open' } });

    await t.probe.until(() => t.probe.submissions.length === 1);
    expect(t.probe.submissions[0]).toEqual({
      actionId: click.actionId,
      messageId: posted.id,
      roomId: t.roomId,
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
    expect(t.fake.requests().some((r) => r.method === 'GET' && r.path === `/v1/attachment/actions/${click.actionId}`)).toBe(true);
    await t.fake.until(() => t.fake.acks().some((a) => a.messageId === click.envelopeIds[0]));
  });

  it('ignores its own clicks and submissions of other cards, in arrival order', async () => {
    const bot = t.makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    t.fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: t.fake.bot.email });
    t.fake.submitCard({ messageId: posted.id, personEmail: 'carol@example.com', inputs: { callback_keyword: 'survey', answer: 'yes' } });
    t.fake.clickCardButton({ messageId: posted.id, title: 'Deny', personEmail: 'bob@example.com' });

    await t.probe.until(() => t.probe.submissions.length === 1);
    expect(t.probe.submissions.map((s) => [s.personEmail, s.inputs['decision']])).toEqual([['bob@example.com', 'DENIED']]);
  });

  it('reuses the device that carries its name, refreshing it instead of registering another', async () => {
    const existing = t.fake.addDevice({ name: 'fault-relay' });
    t.fake.addDevice({ name: 'someone-else' });
    await t.makeBot().start();

    const wdm = t.fake.requests().filter((r) => r.path.startsWith('/wdm/'));
    expect(wdm.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /wdm/api/v1/devices', `PUT /wdm/api/v1/devices/${existing.id}`]);
    expect(t.fake.connections()[0]?.deviceId).toBe(existing.id);
    expect(t.fake.devices()).toHaveLength(2);
  });

  it('registers again when the refresh answers 404', async () => {
    const stale = t.fake.addDevice({ name: 'fault-relay' });
    t.fake.failNextDeviceRefresh(404);
    const bot = t.makeBot();
    await bot.start();

    const wdm = t.fake.requests().filter((r) => r.path.startsWith('/wdm/'));
    expect(wdm.map((r) => r.method)).toEqual(['GET', 'PUT', 'POST']);
    expect(t.fake.connections()[0]?.deviceId).not.toBe(stale.id);
    expect(bot.status()).toMatchObject({ connected: true, deviceRegistered: true });
  });

  it('deletes its device on stop', async () => {
    const bot = t.makeBot();
    await bot.start();
    const [device] = t.fake.devices();
    await bot.stop();

    expect(t.fake.devices()).toEqual([]);
    expect(t.fake.requests().at(-1)).toEqual({ method: 'DELETE', path: `/wdm/api/v1/devices/${device!.id}` });
    expect(bot.status()).toMatchObject({ connected: false, deviceRegistered: false });
    await t.fake.until(() => t.fake.connections()[0]?.closed !== undefined);
    expect(t.fake.connections()[0]?.closed).toEqual({ code: 1000, reason: 'Done' });
  });

  it('falls back to the default device service when the catalog is down', async () => {
    t.fake.failCatalog(503);
    const bot = t.makeBot({ fallbackWdmUrl: t.fake.wdmUrl });
    await bot.start();

    expect(bot.status().connected).toBe(true);
    expect(t.log.text()).toContain('using the default device service');
  });

  it('builds REST ids in the cluster the host catalog names', async () => {
    await t.fake.stop();
    const cluster = 'urn:TEAM:eu-central-1_k';
    t.roomId = newRoomId(cluster);
    t.fake = await startWebexFake({ token: TOKEN, roomId: t.roomId, cluster });
    const bot = t.makeBot();
    await bot.start();
    const posted = await bot.postCard(card(), 'Approval needed');

    t.fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });

    await t.probe.until(() => t.probe.submissions.length === 1);
    expect(t.probe.submissions[0]?.roomId).toBe(t.roomId);
  });
});
