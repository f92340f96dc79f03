import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load';
import { createRelay, type Relay } from '../../src/relay/create-relay';
import type { ChannelHealthReport } from '../../src/relay/health-checks';
import { createSlackChannel } from '../../src/adapters/channels/slack/slack-channel';
import { CHANNELS_LEADER_LOCK } from '../../src/adapters/team/coordinator';
import { holdChannelSockets } from '../../src/adapters/team/leader-lock';
import { openTeamStore } from '../../src/adapters/team/open';
import { TEAM_DECISION_KEY } from './team-relays';
import { startSlackFake, type SlackFake } from '../fakes/slack/slack-fake';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { ad000002, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { auth, teamRelay } from './team-process';
import { until } from './team-relays';
import { testLogDir } from '../helpers/log-dir';
import { teamCluster } from '../../src/adapters/team/team-cluster';

/** Slack on a team relay: one Socket Mode connection for the team, held by the leader only. */
const pg = usePostgres();
const IDS = { appToken: 'xapp-1-team', botToken: 'xoxb-team', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };

async function slackFake(): Promise<SlackFake> {
  const fake = await startSlackFake({ ...IDS, users: { U0ALICE: 'alice@example.net' } });
  onTestFinished(() => fake.stop());
  return fake;
}

type Messaging = { configured: boolean; connected: boolean; standby?: boolean; channels?: Record<string, ChannelHealthReport> };
const messagingOf = async (base: string) => ((await (await request(`${base}/health/deep`, { headers: auth })).body.json()) as { checks: { messaging: Messaging } }).checks.messaging;

/** A team relay as start-headless wires one: Slack among its channels, its socket under the team's leader lock. */
async function slackMember(url: string, fake: SlackFake) {
  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', DATABASE_URL: url, TEAM_DECISION_KEY, RELAY_LOG_DIR: testLogDir() });
  const { store, coordinator: team } = await openTeamStore({ url, retention: config.INCIDENT_RETENTION, leaseMs: 10_000, logger: silent, decisionKey: TEAM_DECISION_KEY });
  const slack = createSlackChannel({ ...IDS, apiUrl: fake.apiUrl, approver: (p) => p.email === 'alice@example.net', logger: silent, pingIntervalMs: 60_000 });
  const lock: { held?: ReturnType<typeof holdChannelSockets> } = {};
  const relay: Relay = await createRelay({ config, store, agent: createStubRuntime(), logger: silent, cluster: teamCluster(team), channels: [slack], standby: () => lock.held?.role() === 'standby', retryBaseMs: 50, deliveryWaitMs: 2_000 });
  await team.start();
  const held = (lock.held = holdChannelSockets({ sockets: [{ name: 'slack', ...slack.connection }], logger: silent, lead: (gain, lose) => team.lead(CHANNELS_LEADER_LOCK, gain, lose) }));
  await held.first;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await team.stop();
    await slack.stop();
    await relay.close();
    await store.pool.end();
  };
  onTestFinished(stop);
  return { relay, store, slack, role: () => held.role(), stop };
}

describe.skipIf(Boolean(noPostgres))('Slack on a team relay', () => {
  it('npm run relay: one Slack socket for the team, the follower stands by, and takes the socket over when the leader is killed', async () => {
    const url = await pg.freshDatabase();
    const fake = await slackFake();
    const env = { SLACK_APP_TOKEN: IDS.appToken, SLACK_BOT_TOKEN: IDS.botToken, SLACK_CHANNEL_ID: IDS.channelId, SLACK_API_URL: fake.apiUrl };
    const a = await teamRelay(url, env);
    await fake.until(() => fake.openSockets() === 1);
    const b = await teamRelay(url, env);
    // B tried the leader lock before it said it listens: it stands by, healthy, with no socket of its own.
    expect(await messagingOf(b.url)).toMatchObject({ configured: true, connected: false, standby: true, channels: { slack: { configured: true, state: 'standby', connected: false } } });
    expect(await messagingOf(a.url)).toMatchObject({ configured: true, connected: true, channels: { slack: { state: 'connected', connected: true } } });
    expect(fake.connectionsOpened()).toBe(1);

    await a.stop('SIGKILL');
    await fake.until(() => fake.connectionsOpened() === 2 && fake.openSockets() === 1);
    // Never two at once: B opened its socket only once A's was gone with A.
    expect(fake.peakSockets()).toBe(1);
    const after = await messagingOf(b.url);
    expect(after.channels?.slack).toMatchObject({ state: 'connected', connected: true });
    // Slack counts one connection, the one B opened: no warning about another holder of the token.
    expect(after.channels?.slack?.warning).toBeUndefined();
  });

  it("a click arriving at the leader for another relay's incident is decided through the team, and the owner applies it", async () => {
    const url = await pg.freshDatabase();
    const fake = await slackFake();
    const leader = await slackMember(url, fake);
    await fake.until(() => fake.openSockets() === 1);
    const owner = await slackMember(url, fake);
    expect([leader.role(), owner.role()]).toEqual(['leader', 'standby']);

    const id = (await owner.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json().incident_id as string;
    await until(owner.relay, () => owner.relay.incidents.get(id)?.state === 'running');
    await owner.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    // The owner asked over Slack's Web API (no socket needed for that); the leader follows the incident.
    const request_id = owner.relay.incidents.get(id)!.approval_request!.request_id;
    const message = fake.messages.find((m) => m.ts === owner.relay.incidents.get(id)!.approval_request!.channel_messages?.slack)!;
    await until(leader.relay, () => leader.relay.incidents.get(id)?.approval_request?.request_id === request_id);

    const approve = (message.blocks!.find((b) => b.type === 'actions') as { elements: { value: string }[] }).elements[0]!.value;
    fake.click({ user: 'U0ALICE', value: approve });
    await until(owner.relay, () => owner.relay.incidents.get(id)?.approval?.decision === 'APPROVED');
    expect(owner.relay.incidents.get(id)?.approval).toMatchObject({ by: 'alice@example.net', channel: 'slack', request_id });
    // Recorded once, in the team's table, by the relay the click reached.
    const rows = await owner.store.pool.query('SELECT decision, channel, received_by FROM decisions WHERE incident_id = $1', [id]);
    expect(rows.rows).toEqual([{ decision: 'APPROVED', channel: 'slack', received_by: leader.store.relayId }]);
    // The owner acknowledged: the Slack message shows the outcome in place of its buttons.
    await fake.until(() => fake.updates.some((u) => u.ts === message.ts));
    expect(JSON.stringify(fake.updates.find((u) => u.ts === message.ts)!.blocks)).toMatch(/APPROVED by alice@example.net via slack/);
  });

  it('a leader that loses its lock (its database connection ended) drops the Slack socket, and the relay that leads next opens one', async () => {
    const url = await pg.freshDatabase();
    const fake = await slackFake();
    const first = await slackMember(url, fake);
    await fake.until(() => fake.openSockets() === 1);
    const second = await slackMember(url, fake);
    expect([first.role(), second.role()]).toEqual(['leader', 'standby']);
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    // The database ends the connection that holds the channels' leader lock (a network cut, a failover).
    const ended = await db.query('SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = $1 AND objid = $2 AND granted', ['advisory', CHANNELS_LEADER_LOCK]);
    expect(ended.rowCount).toBe(1);
    // The old socket is gone and a new one is open, held by whichever relay leads now (the same one may win the lock again).
    await fake.until(() => fake.connectionsOpened() === 2 && fake.openSockets() === 1);
    const members = [first, second];
    const leaders = members.filter((m) => m.role() === 'leader');
    expect(leaders).toHaveLength(1);
    // A frame after Slack's hello is read after it: once it is acked, the leader has counted itself connected.
    const marker = fake.click({ user: 'U0ALICE', value: 'not a relay button' });
    await fake.until(() => fake.acked(marker));
    expect(leaders[0]!.slack.connection.health()).toMatchObject({ connected: true });
  });
});
