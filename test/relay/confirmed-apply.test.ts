import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createMemoryBackend, createPersistentStore } from '../../src/core/incidents/persistent-store';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { untilIncident } from '../helpers/incident-waits';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest, silent } from '../helpers/relay';
import { useSimulatedLab, type SimulatedLab } from '../helpers/sim-lab';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { decideAs } from '../helpers/decide-as';

/**
 * Confirmed apply through the relay, on the simulated lab's own MCP server: every change is
 * provisional, the relay's post-check (the RAW's revalidate step, run by the relay on the device)
 * confirms it or has it rolled back, a person can confirm it, and an unconfirmed one is put back.
 */
const labNow = useSimulatedLab();
let lab: SimulatedLab;
beforeEach(() => {
  lab = labNow();
});

const ana = newToken();
let relay: Relay | undefined;
let device: Awaited<ReturnType<typeof connectMcp>> | undefined;
let tools: Awaited<ReturnType<typeof connectMcp>> | undefined;
afterEach(async () => {
  for (const open of [device, tools, relay]) await open?.close();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const neighbor = () => {
  const r = lab.lab.exec('R1', 'show ip bgp neighbors 10.0.0.2');
  return r.ok ? r.output : r.error;
};

function operatorsFile(): string {
  const path = join(tempDir('fault-relay-confirm-ops-'), 'operators.yaml');
  writeFileSync(path, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 }] }));
  return path;
}

/** An incident on R1 whose repair was approved and applied through the guard. */
async function applied(opts: { faults?: string[]; pace?: number; env?: Record<string, string>; store?: ReturnType<typeof createPersistentStore> } = {}) {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  if (opts.faults?.includes('unreachable')) lab.lab.inject({ fault: 'bgp_peer_unreachable', device: 'R1', neighbor: '10.0.0.2' });
  relay = await relayForTest({
    agent: createStubRuntime(),
    env: { DEVICE_MCP_URL: lab.mcpUrl, RELAY_TOOLS_TOKEN: 'tok', OPERATORS_FILE: operatorsFile(), ...opts.env },
    extraChannels: () => ['desktop'],
    ...(opts.pace !== undefined ? { postCheckPaceS: opts.pace } : {}),
    ...(opts.store ? { store: opts.store } : {}),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  device = await connectMcp(`${url}/device-mcp`, 'tok');
  tools = await connectMcp(`${url}/mcp`, 'tok');
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
  const id = res.json().incident_id as string;
  await tools.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR });
  await decideAs(relay, id, 'APPROVED', 'ana@example.net');
  const out = await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
  expect(out.isError, out.text).toBe(false);
  expect(out.text).toMatch(/provisional until/);
  return id;
}

const confirm = (id: string, body: Record<string, unknown>, token = ana.token) =>
  relay!.app.inject({ method: 'POST', url: `/incidents/${id}/confirm`, headers: { authorization: `Bearer ${token}` }, payload: body });
const settled = (id: string) => untilIncident(relay!, id, (i) => i.change !== null && i.change.state !== 'pending');
const said = (id: string, type: string) => relay!.incidents.timeline(id).filter((e) => e.type === type).map((e) => e.message);

describe('confirmed apply through the relay', () => {
  it('the post-check passes on the device: confirmed by post-check, and the change stays', async () => {
    const id = await applied({ pace: 0 });
    const incident = await settled(id);
    expect(incident.change).toMatchObject({ state: 'confirmed', ended_by: 'post_check', device: 'R1' });
    expect(said(id, 'device.change_confirmed')).toEqual([expect.stringMatching(/^Change on R1 confirmed by post-check$/)]);
    expect(neighbor()).toMatch(/BGP state = Established/);
    // The post-check ran on the device, through the relay, and is on the timeline as evidence.
    expect(relay!.incidents.timeline(id).some((e) => e.type === 'device.exec' && e.by === 'post-check')).toBe(true);
    // A later confirm changes nothing and says why.
    const again = await confirm(id, { change_id: incident.change!.change_id });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'not_pending', message: expect.stringMatching(/already confirmed by post-check/) } });
    expect(incident.application.status).toBe('applied');
  });

  it('the post-check fails: the device is put back (read back) and the timeline says so', async () => {
    const id = await applied({ pace: 0, faults: ['unreachable'] });
    const incident = await settled(id);
    expect(incident.change).toMatchObject({ state: 'rolled_back', ended_by: 'post_check_failed' });
    expect(said(id, 'device.change_rolled_back')[0]).toMatch(/^Change on R1 rolled back: post-check failed/);
    // The configuration from before is back: the neighbor is shut down again.
    expect(neighbor()).toMatch(/Administratively shut down/);
    // The approval is spent: the lines cannot be applied again on its strength.
    const retry = await device!.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
    expect(retry.isError).toBe(true);
    const late = await confirm(id, { change_id: incident.change!.change_id });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.message).toMatch(/rolled back: post-check failed/);
  });

  it('a person confirms before the post-check: confirmed by them; a confirm for another change or without a token is refused', async () => {
    // The RAW waits 10 s before its post-check: a person is faster.
    const id = await applied();
    const change = relay!.incidents.get(id)!.change!;
    expect(change.state).toBe('pending');
    expect((await confirm(id, { change_id: 'chg-not-this-one' })).json()).toMatchObject({ error: { code: 'stale_change' } });
    // The agents' own bearer is no person's token.
    expect((await confirm(id, { change_id: change.change_id }, 'tok')).statusCode).toBe(401);
    expect((await confirm(id, { change_id: change.change_id, extra: 1 })).statusCode).toBe(400);
    expect(relay!.incidents.get(id)!.change!.state).toBe('pending');
    const ok = await confirm(id, { change_id: change.change_id });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'confirmed', by: 'ana@example.net', outcome: 'confirmed by ana@example.net' });
    expect(relay!.incidents.get(id)!.change).toMatchObject({ state: 'confirmed', ended_by: 'person', person: 'ana@example.net' });
    expect(said(id, 'device.change_confirmed')).toEqual(['Change on R1 confirmed by ana@example.net']);
    expect((await confirm(id, { change_id: change.change_id })).statusCode).toBe(409);
  });

  it('nobody confirms: the device puts the change back at the deadline, and the relay says "not confirmed within"', async () => {
    const id = await applied({ env: { CONFIRM_WITHIN_S: '5' } });
    const incident = await settled(id);
    expect(incident.change).toMatchObject({ state: 'rolled_back', ended_by: 'deadline', confirm_within_s: 5 });
    expect(said(id, 'device.change_rolled_back')[0]).toMatch(/^Change on R1 rolled back: not confirmed within 5 s/);
    expect(neighbor()).toMatch(/Administratively shut down/);
  });

  it('the model has no way to confirm: no such tool on either of its tool servers', async () => {
    const id = await applied();
    const change = relay!.incidents.get(id)!.change!;
    for (const name of ['confirm_change', 'change_status', 'rollback_change']) {
      const viaDevice = await device!.call(name, { incident_id: id, device: 'R1', change_id: change.change_id }).catch((e: Error) => ({ isError: true, text: e.message }));
      expect(viaDevice.isError).toBe(true);
      const viaTools = await tools!.call(name, { incident_id: id, change_id: change.change_id }).catch((e: Error) => ({ isError: true, text: e.message }));
      expect(viaTools.isError).toBe(true);
    }
    expect(relay!.incidents.get(id)!.change!.state).toBe('pending');
  });

  it('the relay restarts with a change pending: the new relay runs the post-check again and confirms it', async () => {
    const backend = createMemoryBackend();
    const store = () => createPersistentStore({ backend, retention: 1000, logger: silent });
    // The first relay's post-check would wait the RAW's 10 s: it stops before that.
    const id = await applied({ store: store() });
    const changeId = relay!.incidents.get(id)!.change!.change_id;
    await device!.close();
    await tools!.close();
    await relay!.close();
    device = tools = undefined;
    relay = await relayForTest({ agent: createStubRuntime(), env: { DEVICE_MCP_URL: lab.mcpUrl, RELAY_TOOLS_TOKEN: 'tok' }, store: store(), postCheckPaceS: 0 });
    const incident = await settled(id);
    expect(incident.change).toMatchObject({ change_id: changeId, state: 'confirmed', ended_by: 'post_check' });
    expect(neighbor()).toMatch(/BGP state = Established/);
  });
});
