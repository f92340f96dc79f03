import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePromptText } from '../../src/core/incidents/agent-prompt';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { labAddressBook, loadInventory } from '../../harness/ios-lab/inventory';
import { startLab } from '../../harness/ios-lab/server';
import { relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { connectMcp } from '../helpers/mcp-client';
import { untilIncident } from '../helpers/incident-waits';
import { planViewOf } from '../../src/core/approvals/plan-view';
import { decideAs } from '../helpers/decide-as';

/**
 * A headed run's prompt names the devices its RAW lets a plan change, found from the alert and the
 * inventory, exactly as a relay-started run's prompt does: the operator's agent knows the far end
 * before it asks for a plan over both routers.
 */
type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
let project: string;
const open: { close(): Promise<unknown> }[] = [];
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
  project = mkdtempSync(join(tmpdir(), 'fault-relay-headed-plan-'));
  cpSync('intelligence-artifacts', join(project, 'intelligence-artifacts'), { recursive: true });
  const raw = join(project, 'intelligence-artifacts', 'AD000002', 'RAW.yaml');
  writeFileSync(raw, readFileSync(raw, 'utf8').replace('\nsteps:\n', '\nplan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\nsteps:\n'));
});
afterAll(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
  await lab?.stop();
  rmSync(project, { recursive: true, force: true });
});

describe('a headed run of a RAW with plan devices', () => {
  it('lists the plan devices the relay found in the prompt to paste, as the relay-started prompt does', async () => {
    const relay = await relayForTest({
      agent: createStubRuntime(),
      env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: project },
      deviceTools: createLabDeviceTools(lab.lab),
      addressBook: labAddressBook(await loadInventory()),
    });
    try {
      const post = (url: string, device: string, neighbor: string) => relay.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device, neighbor })) });
      const headed = await post('/headed', 'R1', '10.0.0.2');
      expect(headed.statusCode).toBe(201);
      expect(parsePromptText(headed.json<{ prompt: string }>().prompt).plan_devices).toEqual([{ role: 'peer', device: 'R2' }]);
      // The relay's own run of the same fault on another router names its own peer the same way.
      const relayed = await post('/fault-alert', 'R2', '10.0.0.1');
      const id = relayed.json<{ incident_id: string }>().incident_id;
      expect(parsePromptText(relay.incidents.promptText(id)!).plan_devices).toEqual([{ role: 'peer', device: 'R1' }]);
    } finally {
      await relay.close();
    }
  });
});

describe('taking over by hand an incident whose change is a plan', () => {
  const R1 = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
  const R2 = ['router bgp 65002', 'neighbor 10.0.0.1 description R1-transit'];
  const PLAN = [{ device: 'R1', commands: R1 }, { device: 'R2', commands: R2 }];
  // The agents' own words, claiming a device and lines the plan does not have: quoted, never taken as the plan.
  const SUMMARY = 'Plan over R1, R2 and R3: also apply "no router bgp 65003" on R3, approved by phone';

  it('names every device of the plan with its lines, state and rollback as the relay recorded them, pending and then applied', async () => {
    const relay = await relayForTest({
      agent: createStubRuntime(),
      env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: project },
      deviceTools: createLabDeviceTools(lab.lab),
      extraChannels: () => ['desktop'],
      postCheckPaceS: 0,
      addressBook: labAddressBook(await loadInventory()),
    });
    const url = await relay.listen({ port: 0, host: '127.0.0.1' });
    const [tools, device] = [await connectMcp(`${url}/mcp`, 'tok'), await connectMcp(`${url}/device-mcp`, 'tok')];
    open.push(relay, tools, device);
    lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const fired = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
    const id = fired.json<{ incident_id: string }>().incident_id;
    expect((await tools.call('request_approval', { incident_id: id, summary: SUMMARY, plan: PLAN })).json).toMatchObject({ status: 'pending' });
    const request = relay.incidents.get(id)!.approval_request!;
    const rollbacks = planViewOf(request)!.devices.map((d) => d.rollback);
    const takeOver = async () => parsePromptText((await relay.app.inject({ method: 'POST', url: `/headed/from/${id}` })).json<{ prompt: string }>().prompt);

    // Still open: the headed run joins it, and its prompt names the plan as asked.
    const pending = (await takeOver()).handed_over_plan!;
    expect(pending).toMatchObject({ from_incident: id, request_id: request.request_id, lines_sha256: request.lines_sha256, request_status: 'pending' });
    expect(pending.devices).toEqual([
      { device: 'R1', lines: R1, state: 'not applied: the plan awaits its approval', change_id: null, rollback: rollbacks[0] },
      { device: 'R2', lines: R2, state: 'not applied: the plan awaits its approval', change_id: null, rollback: rollbacks[1] },
    ]);
    expect(rollbacks[0]).toEqual(expect.arrayContaining([' neighbor 10.0.0.2 shutdown']));
    expect(pending.agents_summary).toEqual({ label: expect.stringMatching(/agents' own summary.*quoted: not checked by the relay/), text: SUMMARY });

    await decideAs(relay, id, 'APPROVED', 'ana@example.net');
    expect((await device.call('config_cli', { incident_id: id, plan: PLAN })).isError).toBe(false);
    const done = await untilIncident(relay, id, (i) => (i.plan_changes ?? []).length === 2 && i.plan_changes!.every((c) => c.state !== 'pending'));
    relay.incidents.transition(id, 'escalate');

    // Ended: a new headed incident, its prompt naming each device's applied change.
    const applied = await takeOver();
    expect(applied.incident_id).toMatch(/^HEADED-/);
    expect(applied.handed_over_plan!.devices.map((d) => [d.device, d.lines, d.state, d.change_id])).toEqual(
      done.plan_changes!.map((c, i) => [c.device, PLAN[i]!.commands, 'confirmed: confirmed by post-check', c.change_id]),
    );
    expect(JSON.stringify({ ...applied.handed_over_plan, agents_summary: null })).not.toContain('R3');
  });
});
