import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { MARKDOWN_MAX_BYTES } from '../../../src/adapters/channels/webex/markdown-split';
import { createWebexBot, type WebexBot } from '../../../src/adapters/channels/webex/webex-bot';
import { retryAfterMs } from '../../../src/adapters/channels/webex/webex-http';
import { newRoomId, startWebexFake, type WebexFake } from '../../fakes/webex';
import { captureLogger, createManualClock, createProbe } from './helpers';

const TOKEN = `bot-token-${randomUUID()}`;

describe('Webex as it really behaves: throttling, outages, device caps', () => {
  let roomId: string;
  let fake: WebexFake;
  let clock: ReturnType<typeof createManualClock>;
  let probe: ReturnType<typeof createProbe>;
  let log: ReturnType<typeof captureLogger>;
  let bot: WebexBot | undefined;

  const makeBot = () =>
    (bot = createWebexBot({
      token: TOKEN,
      roomId,
      u2cUrl: fake.u2cUrl,
      apiUrl: fake.apiUrl,
      logger: log.logger,
      clock,
      random: () => 0,
      onCardSubmission: probe.onCardSubmission,
      onStatus: probe.onStatus,
    }));

  beforeEach(async () => {
    roomId = newRoomId();
    fake = await startWebexFake({ token: TOKEN, roomId });
    clock = createManualClock();
    probe = createProbe();
    log = captureLogger();
  });
  afterEach(async () => {
    await bot?.stop();
    bot = undefined;
    await fake.stop();
    expect(log.text()).not.toContain(TOKEN);
  });

  it('a long message throttled half-way waits the Retry-After Webex asks for and is posted whole, in order', async () => {
    const b = makeBot();
    const lines = Array.from({ length: 300 }, (_, i) => `- step ${i}: neighbor 10.0.0.${i % 250} checked`);
    fake.failNext({ method: 'POST', path: /\/v1\/messages$/, status: 429, retryAfter: '7', times: 1 });
    const posting = b.postMarkdown(lines.join('\n'));
    await clock.fire(7000);
    await posting;
    const posted = fake.postedMessages(roomId);
    expect(posted.length).toBeGreaterThan(1);
    expect(posted.map((p) => p.markdown).join('\n').split('\n')).toEqual(lines);
    for (const p of posted) expect(Buffer.byteLength(p.markdown ?? '')).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
  });

  it('a throttled service catalog is waited out, not replaced by the default device service', async () => {
    fake.failNext({ method: 'GET', path: /\/u2c\/api\/v1\/catalog$/, status: 429, retryAfter: '4', times: 1 });
    const b = makeBot();
    const starting = b.start();
    await clock.fire(4000);
    await starting;
    expect(b.status().connected).toBe(true);
    expect(log.text()).not.toContain('using the default device service');
  });

  it('an approval click whose attachment action is throttled is still delivered', async () => {
    const b = makeBot();
    await b.start();
    const posted = await b.postCard(
      buildApprovalCard({ incident_id: 'INC-1', request_id: 'REQ-TEST-0001', alert_def_id: 'AD000002', device: 'R1', summary: 's', commands: ['router bgp 65001'] }),
      'Approval needed',
    );
    fake.failNext({ method: 'GET', path: /\/v1\/attachment\/actions\//, status: 429, retryAfter: '3', times: 2 });
    fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });
    await clock.fire(3000);
    await clock.fire(3000);
    await probe.until(() => probe.submissions.length === 1);
    expect(probe.submissions[0]?.inputs).toMatchObject({ decision: 'APPROVED', incident_id: 'INC-1' });
  });

  it('5xx answers are retried with the backoff, a bounded number of times, then reported', async () => {
    const b = makeBot();
    fake.failNext({ method: 'POST', path: /\/v1\/messages$/, status: 503, times: 2 });
    const posting = b.postMarkdown('**INC-1** · step-progress');
    await clock.fire(250); // the backoff's first step (random() = 0: half of 500 ms)
    await clock.fire(500);
    await posting;
    expect(fake.postedMessages(roomId).map((m) => m.markdown)).toEqual(['**INC-1** · step-progress']);

    fake.failNext({ method: 'POST', path: /\/v1\/messages$/, status: 502, times: 100 });
    const failing = b.postMarkdown('never');
    for (const ms of [250, 500, 1000, 2000, 4000]) await clock.fire(ms);
    await expect(failing).rejects.toThrow(/POST \/v1\/messages failed: HTTP 502/);
  });

  it('too many device registrations: the oldest of this bot\'s registrations are deleted and it registers again', async () => {
    const old = [1, 2, 3, 4, 5].map((i) => fake.addDevice({ name: `old-relay-${i}`, deviceType: 'DESKTOP' }));
    const phone = fake.addDevice({ name: 'phone', deviceType: 'MOBILE' });
    fake.capDevices(6);
    const b = makeBot();
    await b.start();
    expect(b.status()).toMatchObject({ connected: true, deviceRegistered: true });
    const left = fake.devices().map((d) => d.name).sort();
    // 5 old DESKTOP ones: the oldest 2 deleted (the newest 3 kept), the MOBILE one untouched, ours added.
    expect(left).toEqual(['fault-relay', 'old-relay-3', 'old-relay-4', 'old-relay-5', 'phone'].sort());
    expect(old.slice(0, 2).every((d) => !fake.devices().some((x) => x.id === d.id))).toBe(true);
    expect(fake.devices().some((d) => d.id === phone.id)).toBe(true);
    expect(log.text()).toMatch(/too many devices/);
  });

  it('a device update that keeps failing falls back to a fresh registration', async () => {
    const existing = fake.addDevice({ name: 'fault-relay' });
    fake.failNext({ method: 'PUT', path: /\/wdm\/api\/v1\/devices\//, status: 500, times: 100 });
    const b = makeBot();
    const starting = b.start();
    for (const ms of [250, 500, 1000, 2000, 4000]) await clock.fire(ms);
    await starting;
    expect(b.status().connected).toBe(true);
    const mine = fake.devices().filter((d) => d.name === 'fault-relay');
    expect(mine.map((d) => d.id)).toContain(existing.id);
    expect(mine).toHaveLength(2);
    expect(log.text()).toMatch(/refresh keeps failing; registering a fresh device/);
  });

  it('another 403 is still a refused token: no deleting, no retrying', async () => {
    fake.failNext({ method: 'GET', path: /\/v1\/people\/me$/, status: 403, times: 1 });
    const existing = fake.addDevice({ name: 'someone-else' });
    const b = makeBot();
    await expect(b.start()).rejects.toThrow(/403/);
    expect(fake.devices().map((d) => d.id)).toEqual([existing.id]);
  });

  it('a 4000 close that is not a replacement is a reset: it reconnects', async () => {
    const b = makeBot();
    await b.start();
    fake.dropSocket(4000, 'Connection reset by server');
    await probe.until(() => probe.last()?.connected === false);
    await clock.fire(500);
    await probe.until(() => probe.last()?.connected === true);
    expect(b.status().error).toBeUndefined();
    expect(fake.socketAttempts()).toBe(2);
  });

  it('an activity delivered twice (a replay after a reconnect) is acted on once', async () => {
    const b = makeBot();
    await b.start();
    const posted = await b.postCard(
      buildApprovalCard({ incident_id: 'INC-1', request_id: 'REQ-TEST-0001', alert_def_id: 'AD000002', device: 'R1', summary: 's', commands: ['router bgp 65001'] }),
      'Approval needed',
    );
    const click = fake.clickCardButton({ messageId: posted.id, title: 'Approve', personEmail: 'alice@example.com' });
    await probe.until(() => probe.submissions.length === 1);
    click.replay();
    const other = fake.clickCardButton({ messageId: posted.id, title: 'Deny', personEmail: 'bob@example.com' });
    await probe.until(() => probe.submissions.length >= 2);
    expect(probe.submissions.map((s) => s.actionId)).toEqual([click.actionId, other.actionId]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterMs('5', now)).toBe(5000);
    expect(retryAfterMs('Tue, 24 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
