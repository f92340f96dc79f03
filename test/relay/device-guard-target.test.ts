import { afterEach, describe, expect, it } from 'vitest';
import { DeviceToolError, type DeviceTools, WITHOUT_PROVISIONAL } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';
import { withProvisional } from '../helpers/provisional-stand-in';
import type { Relay } from '../../src/relay/create-relay';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { connectMcp } from '../helpers/mcp-client';
import { createStubRuntime } from '../helpers/stub-runtime';
import { relayForTest } from '../helpers/relay';
import { decideAs } from '../helpers/decide-as';

const REPAIR = ['router bgp 65001', ' no neighbor 10.0.0.2 shutdown'];
const closers: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c.close();
});

/** A device tool server that records what the guard sends, and fails as told. */
function recordingDevices() {
  const sent: { device: string; commands: string[] }[] = [];
  let failWith: DeviceToolError | undefined;
  const tools: DeviceTools = { ...WITHOUT_PROVISIONAL,
    execCli: async () => 'ok',
    configCli: async (device, commands) => {
      sent.push({ device, commands });
      if (failWith) throw failWith;
      return 'applied';
    },
  };
  return { tools, sent, failNext: (e: DeviceToolError | undefined) => void (failWith = e) };
}

async function approved(relayDevice = 'R1') {
  const devices = recordingDevices();
  const relay: Relay = await relayForTest({ agent: createStubRuntime(), env: { RELAY_TOOLS_TOKEN: 'tok' }, deviceTools: withProvisional(devices.tools), extraChannels: () => ['desktop'] });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  closers.push(relay, device);
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: relayDevice, neighbor: '10.0.0.2' })) });
  const id = res.json().incident_id as string;
  // As when the run has started (the stub runtime may have taken it already).
  if (relay.incidents.can(id, 'deliver')) relay.incidents.transition(id, 'deliver');
  await relay.approvals.request({ incident_id: id, summary: 's', device: relayDevice, commands: REPAIR });
  expect((await decideAs(relay, id, 'APPROVED', 'ana')).status).toBe('accepted');
  const config = (dev: string, commands: string[]) => device.call('config_cli', { incident_id: id, device: dev, commands });
  return { relay, id, devices, config };
}

describe('what the device guard sends', () => {
  it('the incident\'s own device and the lines exactly as approved, never the model\'s strings', async () => {
    const t = await approved();
    // Hash-equal to the approved lines (mode lines and trailing blanks), on the device spelled otherwise.
    const res = await t.config('  r1 ', ['configure terminal', 'router bgp 65001   ', ' no neighbor 10.0.0.2 shutdown', 'end']);
    expect(res.isError, res.text).toBe(false);
    expect(t.devices.sent).toEqual([{ device: 'R1', commands: REPAIR }]);
    expect(t.relay.incidents.get(t.id)?.application).toMatchObject({ status: 'applied', device: 'R1' });
  });

  it('a call refused before anything was sent does not spend the approval; one that failed after it was sent does', async () => {
    const t = await approved();
    t.devices.failNext(new DeviceToolError('config_cli', '[unknown_device] R1 is not in the inventory', deviceFailure('unknown_device', false)));
    const refused = await t.config('R1', REPAIR);
    expect(refused.isError).toBe(true);
    expect(t.relay.incidents.get(t.id)).toMatchObject({ approval_request: { status: 'approved' }, application: { status: 'none' } });
    expect(t.relay.incidents.timeline(t.id).at(-1)?.message).toMatch(/nothing was applied and the approval still stands/);

    t.devices.failNext(new DeviceToolError('config_cli', '[rejected] % Invalid input; rolled back', deviceFailure('rejected', true, { restored: true })));
    expect((await t.config('R1', REPAIR)).isError).toBe(true);
    expect(t.relay.incidents.get(t.id)?.application.status).toBe('failed');
    t.devices.failNext(undefined);
    expect((await t.config('R1', REPAIR)).text).toMatch(/retry needs a new approval/);
    expect(t.devices.sent).toHaveLength(2);
  });
});
