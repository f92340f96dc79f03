import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { auth, teamRelay } from './team-process';
import { createSseParser } from '../../src/adapters/net/sse';
import { newRoomId, startWebexFake } from '../fakes/webex';

const pg = usePostgres();

const sessions = async (base: string) => (await (await request(`${base}/sessions`, { headers: auth })).body.json()) as Record<string, { state: string; occurrences: number }>;

describe.skipIf(Boolean(noPostgres))('team relay processes (npm run relay with DATABASE_URL)', () => {
  it('two relays share incidents; kill -9 one and the other adopts its alert, the database password never printed', async () => {
    // A password in the URL (the throwaway server trusts loopback, so any one works): it must never show.
    const withPassword = new URL(await pg.freshDatabase());
    withPassword.password = 'team-db-pw';
    const url = withPassword.toString();
    const a = await teamRelay(url);
    const b = await teamRelay(url);
    const alert = buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' });
    const sent = await request(`${a.url}/fault-alert`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(alert) });
    expect(sent.statusCode).toBe(202);
    const { incident_id: id } = (await sent.body.json()) as { incident_id: string };
    const again = await request(`${b.url}/fault-alert`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(alert) });
    expect(await again.body.json()).toMatchObject({ status: 'duplicate', incident_id: id, occurrences: 2 });
    expect(Object.keys(await sessions(b.url))).toEqual([id]);

    // B adopts A's incident once A's lease (1 s) has run out, and says so on its live stream.
    const events = await request(`${b.url}/events`, { headers: auth });
    await a.stop('SIGKILL');
    const parser = createSseParser();
    follow: for await (const chunk of events.body) {
      for (const { data } of parser.push(chunk as Buffer)) if (data.includes('relay.takeover')) break follow;
    }
    events.body.destroy();
    const timeline = ((await (await request(`${b.url}/sessions/${id}`, { headers: auth })).body.json()) as { timeline: { type: string; message: string }[] }).timeline;
    expect(timeline.find((e) => e.type === 'relay.takeover')?.message).toMatch(/Queued on relay \w+, which stopped/);
    const deep = await request(`${b.url}/health/deep`, { headers: auth });
    const health = (await deep.body.json()) as { checks: { store: Record<string, unknown> } };
    expect(health.checks.store).toMatchObject({ backend: 'postgresql', ok: true, live_relays: 1 });
    expect(JSON.stringify(health)).not.toContain('team-db-pw');
    for (const line of [...a.output, ...b.output]) expect(line).not.toContain('team-db-pw');
  });

  it('holds one Webex websocket for the team, and another relay connects when its holder is killed', async () => {
    const url = await pg.freshDatabase();
    const room = newRoomId();
    const fake = await startWebexFake({ token: 'bot-token', roomId: room });
    onTestFinished(() => fake.stop());
    const webex = { MSG_BOT_TOKEN: 'bot-token', MSG_ROOM_ID: room, MSG_U2C_URL: fake.u2cUrl, MSG_API_URL: fake.apiUrl };
    const a = await teamRelay(url, webex);
    const live = () => fake.connections().filter((c) => c.authorized && !c.closed);
    await fake.until(() => live().length === 1);
    const b = await teamRelay(url, webex);
    // B is up, beating and standing by (it tried the leader lock before it said it listens): no socket of its own.
    const deep = await request(`${b.url}/health/deep`, { headers: auth });
    const health = (await deep.body.json()) as { checks: { store: { live_relays: number }; messaging: Record<string, unknown> } };
    expect(health.checks.store.live_relays).toBe(2);
    expect(health.checks.messaging).toMatchObject({ configured: true, connected: false, standby: true });
    expect(fake.connections()).toHaveLength(1);
    await a.stop('SIGKILL');
    await fake.until(() => fake.connections().length === 2 && live().length === 1);
    expect(live()[0]?.id).toBe(fake.connections()[1]?.id);
  });

  it('refuses to start, in one line, when the database cannot be reached', async () => {
    const failed = await teamRelay('postgresql://relay:s3cret-pw@127.0.0.1:1/fault_relay').then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/team database at postgresql:\/\/relay:\*\*\*@127\.0\.0\.1:1\/fault_relay could not be opened: connection refused/);
    expect(failed).not.toContain('s3cret-pw');
  });
});
