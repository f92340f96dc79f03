import { afterAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createMcpDeviceTools, type McpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { buildEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { NO_FRR } from './frr-available';
import { frrLabForFile } from './lab-for-test';
import { decideAs } from '../helpers/decide-as';

/**
 * NSO's no-overwrite on real FRR 8.4 routers, through the relay's guard and the SSH device tool
 * server: the preview's fingerprint of R1's running configuration travels with the approval, the
 * server reads the configuration again before the first line, and a router someone changed by hand
 * in between (vtysh in its namespace) gets nothing.
 */
let lab: FrrLab;
let server: RunningDeviceServer;
let tools: McpDeviceTools;

frrLabForFile({ name: 'frr-no-overwrite', deviceServer: { journal: true } }, (shared) => {
  lab = shared.lab;
  server = shared.server!;
  tools = createMcpDeviceTools(server.mcpUrl, { token: server.token });
});
afterAll(async () => {
  await tools?.close();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const runningBgp = () => lab.vtysh('R1', 'show running-config bgpd');

describe.skipIf(NO_FRR)('no-overwrite on real FRR routers', () => {
  it('reading R1 twice gives the same fingerprint', async () => {
    const a = await tools.previewConfig('R1', REPAIR);
    const b = await tools.previewConfig('R1', REPAIR);
    expect(a.fingerprint).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'running-config' });
    expect(b.fingerprint).toEqual(a.fingerprint);
  });

  it('R1 as previewed: the change goes on, and the server says which configuration it checked', async () => {
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
    const { fingerprint } = await tools.previewConfig('R1', REPAIR);
    const applied = await tools.configProvisional('R1', REPAIR, 600, { expectConfigSha256: fingerprint!.sha256 });
    expect(applied.change).toMatchObject({ state: 'pending', before_sha256: fingerprint!.sha256 });
    expect(await runningBgp()).not.toMatch(/neighbor 10\.0\.0\.2 shutdown/);
    expect(await tools.rollbackChange('R1', applied.change.change_id, 'test done')).toMatchObject({ state: 'rolled_back' });
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end');
  });

  it('R1 changed by hand between preview and apply: nothing is applied, the approval is void, the timeline and the evidence show what changed', async () => {
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
    const relay = await relayForTest({ agent: createStubRuntime(), env: { DEVICE_MCP_URL: server.mcpUrl, DEVICE_MCP_TOKEN: server.token, RELAY_TOOLS_TOKEN: 'frr-tools' }, extraChannels: () => ['desktop'] });
    try {
      const url = await relay.listen({ port: 0, host: '127.0.0.1' });
      const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) })).json().incident_id as string;
      const agentTools = await connectMcp(`${url}/mcp`, 'frr-tools');
      const device = await connectMcp(`${url}/device-mcp`, 'frr-tools');
      try {
        expect((await agentTools.call('request_approval', { incident_id: id, summary: 'bring 10.0.0.2 back', device: 'R1', commands: REPAIR })).json).toMatchObject({ status: 'pending' });
        const previewed = relay.incidents.get(id)!.approval_request!.preview!.fingerprint!.sha256;
        await decideAs(relay, id, 'APPROVED', 'ana@example.net');

        // Another engineer works on R1 meanwhile, in its own vtysh.
        await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 description maintenance-by-hand', 'end');
        const before = await runningBgp();

        const answer = await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
        expect(answer.isError).toBe(true);
        expect(answer.text).toMatch(/^Not applied on R1: its configuration changed since the preview the approval was given on/);
        expect(answer.text).toContain('"+ router bgp 65001 › neighbor 10.0.0.2 description maintenance-by-hand"');
        expect(answer.text).toMatch(/request a new approval \(a new preview and decision\)/);

        // Nothing reached R1: the shutdown line is still there, the running configuration is as the engineer left it.
        expect(await runningBgp()).toBe(before);
        expect(before).toMatch(/^ neighbor 10\.0\.0\.2 shutdown$/m);
        const [mismatch] = relay.incidents.timeline(id).filter((e) => e.type === 'change.fingerprint_mismatch');
        expect(mismatch).toMatchObject({ device: 'R1', before_sha256: previewed, changed: ['+ router bgp 65001 › neighbor 10.0.0.2 description maintenance-by-hand'] });
        expect(mismatch!.now_sha256).not.toBe(previewed);
        expect(relay.incidents.get(id)).toMatchObject({ approval_request: { status: 'expired' }, application: { status: 'none' } });
        const bundle = buildEvidenceBundle({ incident: relay.incidents.get(id)!, timeline: relay.incidents.timeline(id), now: new Date() });
        expect(bundle.change).toMatchObject({ result: 'not_applied', fingerprint_checks: [{ result: 'mismatch', device: 'R1', before_sha256: previewed, now_sha256: mismatch!.now_sha256 }] });
      } finally {
        await agentTools.close();
        await device.close();
      }
    } finally {
      await relay.close();
      await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 description', 'no neighbor 10.0.0.2 shutdown', 'end');
    }
  });
});
