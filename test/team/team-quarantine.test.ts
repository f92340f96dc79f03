import { describe, expect, it, onTestFinished } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { unrollableDevice } from '../helpers/unrollable-device';
import { pgQuarantine } from '../../src/adapters/store-pg/quarantine-repository';
import { approver, operatorsEnv } from './operators-fixture';
import { teamMember, until } from './team-relays';
import { decideAs } from '../helpers/decide-as';

/**
 * A quarantine made on one team relay holds on every relay of the team: it is a row in the shared
 * database, read before any card and any change, and cleared on any relay by an approver.
 */
const pg = usePostgres();
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const post = (relay: Relay, neighbor: string) =>
  relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor })) });

describe.skipIf(Boolean(noPostgres))('team relay: quarantined devices', () => {
  it('a rollback that failed on relay A keeps relay B from asking for R1 until an approver clears it on B', async () => {
    const url = await pg.freshDatabase();
    const env = { RELAY_TOOLS_TOKEN: 'tok', ...operatorsEnv() };
    const a = await teamMember(url, { env, relay: { deviceTools: unrollableDevice(), postCheckPaceS: 0 } });
    const b = await teamMember(url, { env, relay: { deviceTools: unrollableDevice(), postCheckPaceS: 0 } });
    const base = await a.relay.listen({ port: 0, host: '127.0.0.1' });
    const device = await connectMcp(`${base}/device-mcp`, 'tok');
    onTestFinished(() => device.close());

    const first = (await post(a.relay, '10.0.0.2')).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(first)?.state === 'running');
    expect(await a.relay.approvals.request({ incident_id: first, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR })).toMatchObject({ status: 'pending' });
    await decideAs(a.relay, first, 'APPROVED', approver.email);
    const applied = await device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    await until(a.relay, () => a.relay.incidents.timeline(first).some((e) => e.type === 'device.quarantined'));

    // In the shared database, for every relay.
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    const rows = await db.query('SELECT device, incident_id FROM quarantined_devices');
    expect(rows.rows).toEqual([{ device: 'R1', incident_id: first }]);

    // B's own incident on R1: no card, escalated with the quarantine's reason.
    const second = (await post(b.relay, '10.0.0.3')).json().incident_id as string;
    await until(b.relay, () => b.relay.incidents.get(second)?.state === 'running');
    expect(b.team.owns(second)).toBe(true);
    const refused = await b.relay.approvals.request({ incident_id: second, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR });
    expect(refused).toMatchObject({ status: 'escalated_quarantined', device: 'R1', reason: expect.stringMatching(/^R1 is quarantined since .*ROLLBACK FAILED/) });
    expect(b.relay.incidents.get(second)).toMatchObject({ state: 'escalated', approval_request: null });
    const health = (await b.relay.app.inject({ url: '/health' })).json<{ status: string; reasons: string[] }>();
    expect(health.status).toBe('degraded');
    expect(health.reasons.join('\n')).toMatch(/^R1 is quarantined since /m);

    // Cleared on B by an approver: A asks for R1 again.
    const cleared = await b.relay.app.inject({ method: 'POST', url: '/devices/R1/clear', headers: { authorization: `Bearer ${approver.token}` } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect((await db.query('SELECT count(*)::int AS n FROM quarantined_devices')).rows[0]).toEqual({ n: 0 });
    const third = (await post(a.relay, '10.0.0.4')).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(third)?.state === 'running');
    expect(await a.relay.approvals.request({ incident_id: third, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR })).toMatchObject({ status: 'pending' });
  });

  it('a plan held on relay A for its quarantined far end is asked by A once an approver clears the device on relay B', async () => {
    const url = await pg.freshDatabase();
    const env = { RELAY_TOOLS_TOKEN: 'tok', ...operatorsEnv() };
    // A reads the quarantines again with each heartbeat: that is how it learns of B's clear.
    const a = await teamMember(url, { env, heartbeatMs: 200, relay: { deviceTools: unrollableDevice(), postCheckPaceS: 0 } });
    const b = await teamMember(url, { env, relay: { deviceTools: unrollableDevice(), postCheckPaceS: 0 } });
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    const reason = 'change chg-old of INC-OLD: ROLLBACK FAILED (post-check failed): check the device';
    await pgQuarantine(db).add({ device: 'R2', reason, since: new Date().toISOString(), incident_id: null, change_id: 'chg-old' });

    const id = (await post(a.relay, '10.0.0.2')).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
    const plan = [{ device: 'R1', commands: REPAIR, rollback: [], preview: null }, { device: 'R2', commands: ['router bgp 65002', 'neighbor 10.0.0.1 description R1'], rollback: [], preview: null }];
    const held = await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'both ends', commands: ['! device R1', ...REPAIR], plan });
    expect(held).toMatchObject({ status: 'held', device: 'R2', waiting_for: { quarantined: 'R2', reason } });
    expect((await db.query('SELECT incident_id, waiting_for_incident, waiting_for_quarantine FROM held_requests')).rows).toEqual([{ incident_id: id, waiting_for_incident: null, waiting_for_quarantine: expect.objectContaining({ device: 'R2', reason }) }]);

    const cleared = await b.relay.app.inject({ method: 'POST', url: '/devices/R2/clear', headers: { authorization: `Bearer ${approver.token}` } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'awaiting_approval');
    expect(a.relay.incidents.get(id)!.approval_request?.plan?.map((e) => e.device)).toEqual(['R1', 'R2']);
    await untilDatabase(db, 'SELECT count(*) = 0 AS ok FROM held_requests');
  });

  it("a request held behind another change on R1 is a row of held_requests until it is asked", async () => {
    const url = await pg.freshDatabase();
    const env = { RELAY_TOOLS_TOKEN: 'tok', ...operatorsEnv() };
    const a = await teamMember(url, { env, relay: { deviceTools: unrollableDevice({ readsWaitFor: new Promise(() => undefined) }), postCheckPaceS: 0 } });
    const base = await a.relay.listen({ port: 0, host: '127.0.0.1' });
    const device = await connectMcp(`${base}/device-mcp`, 'tok');
    onTestFinished(() => device.close());
    const db = await testConnection(url);
    onTestFinished(() => db.end());

    const first = (await post(a.relay, '10.0.0.2')).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(first)?.state === 'running');
    expect(await a.relay.approvals.request({ incident_id: first, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR })).toMatchObject({ status: 'pending' });
    await decideAs(a.relay, first, 'APPROVED', approver.email);
    expect((await device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR })).isError).toBe(false);
    const change = a.relay.incidents.get(first)!.change!;

    const second = (await post(a.relay, '10.0.0.3')).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(second)?.state === 'running');
    expect(await a.relay.approvals.request({ incident_id: second, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR })).toMatchObject({ status: 'held' });
    expect((await db.query('SELECT incident_id, waiting_for_incident, waiting_for_change FROM held_requests')).rows).toEqual([{ incident_id: second, waiting_for_incident: first, waiting_for_change: change.change_id }]);

    expect(await a.relay.confirm!({ incident_id: first, change_id: change.change_id, who: { id: approver.email, authenticated_by: 'personal_token' } })).toMatchObject({ ok: true });
    await until(a.relay, () => a.relay.incidents.get(second)?.state === 'awaiting_approval');
    await untilDatabase(db, 'SELECT count(*) = 0 AS ok FROM held_requests');
  });
});
