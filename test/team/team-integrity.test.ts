import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../../src/config/load';
import { RUNTIME_OMIT_ENV } from '../../src/relay/start-headless';
import { createDecisionSeal } from '../../src/adapters/team/decision-seal';
import { ad000002 } from '../helpers/relay';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { teamRelay } from './team-process';
import { TEAM_DECISION_KEY, teamMember, until, type TeamMember } from './team-relays';

/**
 * Write access to the team database is not a person: a decision row counts only when it carries
 * the MAC the relays make under TEAM_DECISION_KEY, which the database never holds. And one
 * RELAY_ID is one live relay.
 */
const pg = usePostgres();

/** An incident of `owner`'s awaiting approval, seen by `other` too. */
async function awaitingApproval(owner: TeamMember, other: TeamMember) {
  const id = (await owner.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json().incident_id as string;
  await until(owner.relay, () => owner.relay.incidents.get(id)?.state === 'running');
  await owner.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'], rollback: [] });
  await until(other.relay, () => other.relay.incidents.get(id)?.state === 'awaiting_approval');
  return { id, request: owner.relay.incidents.get(id)!.approval_request! };
}

const forgedLines = (m: TeamMember, id: string) => m.relay.incidents.timeline(id).filter((e) => e.type === 'decision.forged');

describe.skipIf(Boolean(noPostgres))('team relay: decision rows carry the relays\' MAC', () => {
  it('ignores a decision row written into the database directly and one whose person was altered; says so; a real decision still wins', async () => {
    const url = await pg.freshDatabase();
    const ops = await import('./operators-fixture');
    const env = ops.operatorsEnv();
    const a = await teamMember(url, { env });
    const b = await teamMember(url, { env });
    const { id, request } = await awaitingApproval(a, b);
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    const insert = (row: { by_name: string; mac: string | null }) =>
      db.query(
        `INSERT INTO decisions (incident_id, requested_at, decision, by_name, channel, comment, decided_at, received_by, mac) VALUES ($1, $2, 'APPROVED', $3, 'api', NULL, $4, 'relay-x', $5)`,
        [id, request.requested_at, row.by_name, '2026-11-28T10:00:00.000Z', row.mac],
      );
    const notify = () => db.query('SELECT pg_notify($1, $2)', ['fault_relay_decisions', JSON.stringify({ i: id, q: request.requested_at })]);

    // 1. Someone with DATABASE_URL writes an approval as a named person: no MAC it could know.
    await insert({ by_name: 'ana@example.net', mac: 'Zm9yZ2VkLWJ5LWEtZGF0YWJhc2UtdXNlci0wMDAwMDAwMDAw' });
    await notify();
    await until(a.relay, () => forgedLines(a, id).length === 1);
    expect(a.relay.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null });
    expect(forgedLines(a, id)[0]!.message).toMatch(/failed its integrity check .* ignored, nothing applied/);
    const health = (await a.relay.app.inject({ url: '/health' })).json<{ warnings: string[] }>();
    expect(health.warnings).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`1 decision or confirm row\\(s\\) in the team database failed their MAC check .*a decision on ${id}`))]));
    expect(JSON.stringify(health)).not.toContain(TEAM_DECISION_KEY);

    // 2. A row a relay signed for Ana, its person altered before the owner read it.
    await db.query('DELETE FROM decisions WHERE incident_id = $1', [id]);
    const seal = createDecisionSeal(TEAM_DECISION_KEY);
    const real = { incident_id: id, request_id: request.request_id, lines_sha256: request.lines_sha256, decision: 'APPROVED', by_name: 'ana@example.net', decided_at: '2026-11-28T10:00:00.000Z', channel: 'api', comment: null };
    await db.query('BEGIN');
    await insert({ by_name: real.by_name, mac: seal.decision(real) });
    await db.query('UPDATE decisions SET by_name = $2 WHERE incident_id = $1', [id, 'mallory@example.net']);
    await db.query('COMMIT');
    await notify();
    await until(a.relay, () => forgedLines(a, id).length === 2);
    expect(a.relay.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null });

    // 3. Ana decides on the other relay: the altered row gives way, the owner applies hers.
    const decided = await b.relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ops.approver.token}` }, payload: { request_id: request.request_id, decision: 'DENIED' } });
    expect(decided.statusCode, decided.body).toBe(200);
    await until(a.relay, () => a.relay.incidents.get(id)?.approval?.decision === 'DENIED');
    expect(a.relay.incidents.get(id)!.approval).toMatchObject({ by: 'Ana Ruiz', channel: 'api' });
    const rows = await db.query('SELECT by_name, decision, mac IS NOT NULL AS signed FROM decisions WHERE incident_id = $1', [id]);
    expect(rows.rows).toEqual([{ by_name: 'Ana Ruiz', decision: 'DENIED', signed: true }]);
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: one RELAY_ID, one live relay', () => {
  it('refuses a second relay under a live id, naming it and when it was last seen; takes the id over once that relay stopped', async () => {
    const url = await pg.freshDatabase();
    const first = await teamMember(url, { relayId: 'relay-east' });
    const second = teamMember(url, { relayId: 'relay-east' });
    await expect(second).rejects.toBeInstanceOf(ConfigError);
    await expect(second).rejects.toThrow(/RELAY_ID: relay-east is in use by a live relay \(.+, last seen \d{4}-\d\d-\d\dT[\d:.]+Z, \d+ s ago\)/);

    await first.stop();
    const again = await teamMember(url, { relayId: 'relay-east' });
    expect(again.team.relayId).toBe('relay-east');
  });

  it('npm run relay: a second process under a live RELAY_ID exits 78 with the reason; a missing key is refused at start; the key is in no log line', async () => {
    const url = await pg.freshDatabase();
    // A lease no loaded machine misses: the first relay is alive throughout.
    const west = await teamRelay(url, { RELAY_ID: 'relay-west', RELAY_LEASE_MS: '60000' });
    await expect(teamRelay(url, { RELAY_ID: 'relay-west', RELAY_LEASE_MS: '60000' })).rejects.toThrow(/exited with 78[\s\S]*RELAY_ID: relay-west is in use by a live relay/);
    await expect(teamRelay(url, { TEAM_DECISION_KEY: '' })).rejects.toThrow(/exited with 78[\s\S]*TEAM_DECISION_KEY: required with DATABASE_URL/);
    expect(west.output.join('\n')).not.toContain(TEAM_DECISION_KEY);
    // An embedded runtime is started without either (the relay's secrets are kept from it).
    expect(RUNTIME_OMIT_ENV).toEqual(expect.arrayContaining(['TEAM_DECISION_KEY', 'TEAM_DECISION_KEY_FILE']));
    const health = await (await fetch(`${west.url}/health`)).text();
    expect(health).not.toContain(TEAM_DECISION_KEY);
  });
});
