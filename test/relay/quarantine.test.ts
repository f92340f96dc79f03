import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/alert/sample';
import { newToken } from '../../src/operators/operators';
import type { QuarantineBackend } from '../../src/quarantine/entry';
import { fileQuarantine } from '../../src/quarantine/file-backend';
import type { Relay } from '../../src/relay/create-relay';
import { untilIncident } from '../helpers/incident-waits';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { unrollableDevice } from '../helpers/unrollable-device';

/**
 * A device whose change could not be put back is quarantined: no card and no configuration reach
 * it, from any incident, until an approver clears it; /health names it; the quarantine outlives a
 * restart of the relay.
 */
const ana = newToken();
const vic = newToken();
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

function operatorsFile(): string {
  const path = join(tempDir('fault-relay-quarantine-ops-'), 'operators.yaml');
  writeFileSync(
    path,
    stringify({
      operators: [
        { name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 },
        { name: 'Victor Li', email: 'vic@example.net', role: 'viewer', token_sha256: vic.sha256 },
      ],
    }),
  );
  return path;
}

async function start(opts: { quarantine?: QuarantineBackend; device?: ReturnType<typeof unrollableDevice> } = {}) {
  const relay: Relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', OPERATORS_FILE: operatorsFile() },
    extraChannels: () => ['desktop'],
    deviceTools: opts.device ?? unrollableDevice(),
    postCheckPaceS: 0,
    ...(opts.quarantine ? { quarantine: opts.quarantine } : {}),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  open.push(relay, tools, device);
  const fire = async (neighbor: string) =>
    (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor })) })).json().incident_id as string;
  const ask = (id: string) => tools.call('request_approval', { incident_id: id, summary: 'unshut the neighbor', device: 'R1', commands: REPAIR });
  const clear = (name: string, token?: string) => relay.app.inject({ method: 'POST', url: `/devices/${name}/clear`, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const health = async () => (await relay.app.inject({ url: '/health' })).json() as { status: string; reasons?: string[]; quarantined_devices?: { device: string }[] };
  /** An incident on R1 whose approved change went on and could not be rolled back. */
  const unrolled = async () => {
    const id = await fire('10.0.0.2');
    expect((await ask(id)).json).toMatchObject({ status: 'pending' });
    relay.approvals.decide(id, 'APPROVED', { id: 'ana@example.net' }, 'desktop');
    const applied = await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    await untilIncident(relay, id, (_i, timeline) => timeline.some((e) => e.type === 'device.quarantined'));
    return id;
  };
  return { relay, device, fire, ask, clear, health, unrolled };
}

describe('quarantined devices', () => {
  it('a rollback that fails quarantines the device: the next request gets no card and escalates; a viewer cannot clear it, an approver can', async () => {
    const t = await start();
    const first = await t.unrolled();
    expect(t.relay.incidents.get(first)!.change).toMatchObject({ state: 'rollback_failed' });
    const quarantined = t.relay.incidents.timeline(first).find((e) => e.type === 'device.quarantined')!;
    expect(quarantined).toMatchObject({ device: 'R1', reason: expect.stringMatching(/ROLLBACK FAILED \(post-check failed\)/) });

    const health = await t.health();
    expect(health.status).toBe('degraded');
    expect(health.reasons?.join('\n')).toMatch(/^R1 is quarantined since \S+: change chg-1 of /m);
    expect(health.quarantined_devices).toEqual([expect.objectContaining({ device: 'R1', incident_id: first })]);

    // A second incident on the device: its request is answered with the reason, no card, the run escalated.
    const second = await t.fire('10.0.0.3');
    const answer = await t.ask(second);
    expect(answer.json).toMatchObject({ status: 'escalated_quarantined', device: 'R1', reason: expect.stringMatching(/^R1 is quarantined since .*ROLLBACK FAILED/) });
    expect(t.relay.incidents.get(second)).toMatchObject({ state: 'escalated', approval_request: null });
    const types = t.relay.incidents.timeline(second).map((e) => e.type);
    expect(types).toContain('approval.quarantined');
    expect(types).not.toContain('approval.requested');

    // Clearing takes an approver's own token.
    const anon = await t.clear('R1');
    expect(anon.statusCode, anon.body).toBe(401);
    const viewer = await t.clear('R1', vic.token);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ error: { code: 'not_an_approver', message: expect.stringMatching(/only approvers clear a quarantined device/) } });
    expect((await t.clear('R1', 'tok')).statusCode).toBe(401);
    const unknown = await t.clear('R9', ana.token);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_quarantined' } });
    expect((await t.clear('R1;reboot', ana.token)).statusCode).toBe(400);
    expect((await t.health()).status).toBe('degraded');

    const cleared = await t.clear('r1', ana.token);
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({ status: 'cleared', device: 'R1', by: 'ana@example.net', was: { incident_id: first, change_id: 'chg-1' } });
    expect(t.relay.incidents.timeline(first).find((e) => e.type === 'device.cleared')).toMatchObject({ device: 'R1', by: 'ana@example.net' });
    expect(await t.health()).not.toHaveProperty('quarantined_devices');
    expect((await t.clear('R1', ana.token)).statusCode).toBe(404);

    // Cleared: a new incident on R1 is asked as before.
    const third = await t.fire('10.0.0.4');
    expect((await t.ask(third)).json).toMatchObject({ status: 'pending' });
  });

  it('an approval given before the quarantine applies nothing on the quarantined device', async () => {
    const t = await start();
    // Approved while the device is still clean; the other incident's rollback fails before it is applied.
    const later = await t.fire('10.0.0.3');
    expect((await t.ask(later)).json).toMatchObject({ status: 'pending' });
    t.relay.approvals.decide(later, 'APPROVED', { id: 'ana@example.net' }, 'desktop');
    await t.unrolled();
    const refused = await t.device.call('config_cli', { incident_id: later, device: 'R1', commands: REPAIR });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/REFUSED by the relay's device guard: R1 is quarantined since .*Nothing was sent/);
    expect(t.relay.incidents.get(later)!.change).toBeNull();
  });

  it('the quarantine is kept in the data folder: a restarted relay still honours it', async () => {
    const dir = tempDir('fault-relay-quarantine-data-');
    const before = await start({ quarantine: fileQuarantine(dir) });
    await before.unrolled();
    await open.splice(0).reverse().reduce((p, c) => p.then(() => c.close()), Promise.resolve<unknown>(undefined));

    const after = await start({ quarantine: fileQuarantine(dir) });
    expect((await after.health()).reasons?.join('\n')).toMatch(/^R1 is quarantined since /m);
    const id = await after.fire('10.0.0.3');
    expect((await after.ask(id)).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });
    expect((await after.clear('R1', ana.token)).statusCode).toBe(200);
    // Cleared in the file too: the next start has nothing quarantined.
    expect(await fileQuarantine(dir).load()).toEqual([]);
  });
});
