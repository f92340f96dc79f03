import { describe, expect, it, onTestFinished } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { useSimulatedLab } from '../helpers/sim-lab';
import { teamMember, until } from './team-relays';
import { decideAs } from '../helpers/decide-as';

/**
 * A person's confirm of a provisional change arriving at a relay that does not own the incident:
 * recorded in the database first, applied by the owner (who alone talks to the device tool server
 * and writes the incident), and answered to the caller with the owner's outcome.
 */
const pg = usePostgres();
const labNow = useSimulatedLab();

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const post = (relay: Relay) => relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });

describe.skipIf(Boolean(noPostgres))('team relay: confirms reach the owner', () => {
  it('a confirm on a non-owner is applied by the owner, once, and its caller is told the outcome; a second one is refused; one written into the database by hand keeps nothing', async () => {
    const lab = labNow();
    lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const url = await pg.freshDatabase();
    const env = { DEVICE_MCP_URL: lab.mcpUrl, RELAY_TOOLS_TOKEN: 'tok' };
    const a = await teamMember(url, { env });
    const b = await teamMember(url, { env });
    const base = await a.relay.listen({ port: 0, host: '127.0.0.1' });
    const device = await connectMcp(`${base}/device-mcp`, 'tok');
    onTestFinished(() => device.close());

    const id = (await post(a.relay)).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
    await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR });
    await decideAs(a.relay, id, 'APPROVED', 'ana@example.net');
    const applied = await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    // The RAW waits 10 s before its post-check: the person on B is first.
    await until(b.relay, () => b.relay.incidents.get(id)?.change?.state === 'pending');
    const changeId = b.relay.incidents.get(id)!.change!.change_id;

    // A confirm written into the database by hand (no relay's MAC), with an answer beside it: the owner keeps nothing.
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    await db.query(
      `INSERT INTO confirms (incident_id, change_id, by_name, requested_at, received_by, mac, result, applied_at) VALUES ($1, $2, 'mallory@example.net', $3, 'relay-x', 'bm90LWEtbWFj', '{"ok":true}', $3)`,
      [id, changeId, new Date().toISOString()],
    );
    await db.query('SELECT pg_notify($1, $2)', ['fault_relay_decisions', JSON.stringify({ i: id, q: changeId, k: 'confirm' })]);
    await until(a.relay, () => a.relay.incidents.timeline(id).some((e) => e.type === 'confirm.forged'));
    expect(a.relay.incidents.get(id)?.change).toMatchObject({ state: 'pending', person: null });

    // Ana's real confirm on B takes the forged row's place, and B answers with the owner's outcome, not the forged one.
    const result = await b.relay.confirm!({ incident_id: id, change_id: changeId, who: { id: 'ana@example.net', authenticated_by: 'personal_token' } });
    expect(result).toMatchObject({ ok: true, change: { state: 'confirmed', ended_by: 'person', person: 'ana@example.net' } });
    expect(a.relay.incidents.get(id)?.change).toMatchObject({ state: 'confirmed', person: 'ana@example.net' });
    await a.store.flush();
    const shared = await a.store.loadTimeline(id);
    expect(shared.filter((e) => e.type === 'device.change_confirmed').map((e) => e.message)).toEqual(['Change on R1 confirmed by ana@example.net']);

    const again = await b.relay.confirm!({ incident_id: id, change_id: changeId, who: { id: 'bo@example.net', authenticated_by: 'personal_token' } });
    expect(again).toMatchObject({ ok: false, code: 'not_pending' });
    const stale = await b.relay.confirm!({ incident_id: id, change_id: 'chg-other', who: { id: 'bo@example.net', authenticated_by: 'personal_token' } });
    expect(stale).toMatchObject({ ok: false, code: 'stale_change' });
    await a.store.flush();
    expect((await a.store.loadTimeline(id)).filter((e) => e.type === 'device.change_confirmed')).toHaveLength(1);
  });
});
