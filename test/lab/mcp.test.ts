import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../../harness/raw-tests/clock';
import { DeviceToolError } from '../../src/core/changes/device-contract';
import { createMcpDeviceTools, type McpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import { runRaw } from '../../harness/raw-tests/engine';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { extractFromLogLine } from '../../src/runbooks/variables';
import { createLabAdminClient, LabAdminError } from '../../harness/ios-lab/admin-client';
import { startLab, type RunningLab } from '../../harness/ios-lab/server';

let running: RunningLab;
let clock: VirtualClock;
let client: Client;

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

beforeAll(async () => {
  clock = createVirtualClock();
  running = await startLab({ host: '127.0.0.1', port: 0, clock, convergeDelayMs: 5000, logger: pino({ level: 'silent' }) });
  client = new Client({ name: 'lab-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.mcpUrl)));
});
afterAll(async () => {
  await client?.close();
  await running?.stop();
});
beforeEach(() => running.lab.reset());

describe('the device lab over MCP (Streamable HTTP, loopback)', () => {
  it('listens on loopback and offers exactly the device tools, the dry run and the provisional-change tools', async () => {
    expect(running.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['change_status', 'config_cli', 'confirm_change', 'exec_cli', 'preview_config', 'rollback_change']);
    const exec = tools.find((t) => t.name === 'exec_cli')!;
    expect(exec.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(exec.inputSchema.properties ?? {}).sort()).toEqual(['command', 'device']);
  });

  it("keeps a device's secret out of the dry run it answers: the key is shown as [redacted] to the agents and on every card", async () => {
    const r = await client.callTool({ name: 'preview_config', arguments: { device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 password s3cret-Key-91'] } });
    const preview = r.structuredContent as { accepted: boolean; added: string[] };
    expect(preview.accepted).toBe(true);
    expect(preview.added).toEqual(['router bgp 65001 > neighbor 10.0.0.2 password [redacted]']);
    expect(JSON.stringify(r)).not.toContain('s3cret-Key-91');
  });

  it('answers show commands and returns IOS errors as tool errors', async () => {
    const ok = await client.callTool({ name: 'exec_cli', arguments: { device: 'R1', command: 'show ip bgp summary' } });
    expect(ok.isError).toBeFalsy();
    expect(text(ok)).toMatch(/^BGP router identifier 10\.255\.0\.1, local AS number 65001$/m);

    const unknown = await client.callTool({ name: 'exec_cli', arguments: { device: 'R9', command: 'show version' } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('% Unknown host "R9"');

    const invalid = await client.callTool({ name: 'exec_cli', arguments: { device: 'R1', command: 'show bgp summry' } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain("% Invalid input detected at '^' marker.");

    const config = await client.callTool({ name: 'exec_cli', arguments: { device: 'R1', command: 'configure terminal' } });
    expect(config.isError).toBe(true);
    expect(running.lab.configChanges()).toBe(0);
  });

  it('shows an injected fault exactly as the FS expects, and a config_cli repair brings the neighbor back after the delay', async () => {
    const ad2 = await loadArtifactGroup('intelligence-artifacts', 'AD000002');
    const admin = createLabAdminClient(running.url);
    expect(await admin.inject({ fault: 'AD000002', device: 'R1', neighbor: '10.0.0.2' })).toBe('R1: neighbor 10.0.0.2 administratively shut down');

    const logs = text(await client.callTool({ name: 'exec_cli', arguments: { device: 'R1', command: 'show logging | include BGP' } }));
    const detected = logs.split('\n').map((l) => extractFromLogLine(ad2.fs, l)).filter(Boolean);
    expect(detected.map((d) => d!.pattern)).toEqual(['bgp_adjchange_admin_shutdown', 'bgp_session_admin_shutdown']);
    expect(detected.every((d) => d!.vars.neighbor_ip === '10.0.0.2')).toBe(true);

    const neighbor = () => client.callTool({ name: 'exec_cli', arguments: { device: 'R1', command: 'show ip bgp neighbors 10.0.0.2' } }).then(text);
    expect(await neighbor()).toMatch(/^ {2}Administratively shut down\n {2}BGP version 4, remote router ID 0\.0\.0\.0\n {2}BGP state = Idle/m);

    const repair = await client.callTool({ name: 'config_cli', arguments: { device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] } });
    expect(repair.isError).toBeFalsy();
    expect(text(repair)).toContain('R1(config-router)#no neighbor 10.0.0.2 shutdown');
    expect(await neighbor()).toMatch(/BGP state = Active/);
    clock.advance(5000);
    const after = await neighbor();
    expect(after).toMatch(/^ {2}BGP state = Established, up for 00:00:00$/m);
    expect(after).toMatch(/^ {4}Prefixes Current: +\d+ +12 /m);
  });

  it('rejects a bad change list as a whole, through MCP', async () => {
    const r = await client.callTool({ name: 'config_cli', arguments: { device: 'R1', commands: ['interface Gi4', 'no shutdown', 'router bgp 1'] } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('% BGP is already running; AS is 65001\n% No changes were applied.');
    expect(running.lab.configChanges()).toBe(0);
  });

  it('runs a whole RAW through the MCP device tools', async () => {
    const ad2 = await loadArtifactGroup('intelligence-artifacts', 'AD000002');
    running.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.1.1.2', vrf: 'CUST-A' });
    const tools: McpDeviceTools = createMcpDeviceTools(running.mcpUrl);
    try {
      const result = await runRaw({ raw: ad2.raw, fs: ad2.fs, vars: { device_hostname: 'R1', neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' }, tools, clock, approve: async () => 'APPROVED' });
      expect(result.outcome).toBe('resolved');
      expect(result.terminal_step).toBe('resolve_neighbor_restored');
      await expect(tools.execCli('R9', 'show version')).rejects.toThrow(DeviceToolError);
    } finally {
      await tools.close();
    }
  });

  it('answers the plain health check and refuses bad admin requests', async () => {
    const health = await fetch(`${running.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', service: 'device-lab', devices: 3 });
    const admin = createLabAdminClient(running.url);
    await expect(admin.inject({ fault: 'AD000002', device: 'R1' })).rejects.toThrow(/neighbor/);
    await expect(admin.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.9.9.9' })).rejects.toThrow('R1 has no BGP neighbor 10.9.9.9');
    await expect(admin.inject({ fault: 'meltdown', device: 'R1' })).rejects.toThrow(LabAdminError);
    const bad = await fetch(`${running.url}/admin/inject`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
    expect(running.lab.configChanges()).toBe(0);
    expect((await fetch(`${running.url}/nope`)).status).toBe(404);
  });
});
