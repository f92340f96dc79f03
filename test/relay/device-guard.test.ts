import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { IncidentStore } from '../../src/core/incidents/store';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { createPgStore } from '../../src/adapters/store-pg/pg-store';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { startLab } from '../../harness/ios-lab/server';
import type { Relay } from '../../src/relay/create-relay';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { connectMcp } from '../helpers/mcp-client';
import { createStubRuntime } from '../helpers/stub-runtime';
import { relayForTest, silent } from '../helpers/relay';
import { decideAs } from '../helpers/decide-as';

const pg = usePostgres();

type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
});
afterAll(async () => lab?.stop());

let relay: Relay | undefined;
let device: Awaited<ReturnType<typeof connectMcp>> | undefined;
let tools: Awaited<ReturnType<typeof connectMcp>> | undefined;
afterEach(async () => {
  await device?.close();
  await tools?.close();
  await relay?.close();
  lab.lab.reset();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const room = { postMarkdown: async () => undefined, postCard: async () => ({ id: 'card-1' }) };

async function setUp(mode: 'strict' | 'hybrid' = 'strict', store?: IncidentStore) {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  relay = await relayForTest({
    ...(store ? { store } : {}),
    agent: createStubRuntime(),
    env: { DEVICE_MCP_URL: lab.mcpUrl, RELAY_TOOLS_TOKEN: 'tok', REMEDIATION_MODE: mode },
    room,
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  device = await connectMcp(`${url}/device-mcp`, 'tok');
  tools = await connectMcp(`${url}/mcp`, 'tok');
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
  return res.json().incident_id as string;
}

const exec = (incident_id: string, command: string, dev = 'R1') => device!.call('exec_cli', { incident_id, device: dev, command });
const config = (incident_id: string, commands: string[], dev = 'R1') => device!.call('config_cli', { incident_id, device: dev, commands });
const neighborState = () => lab.lab.exec('R1', 'show ip bgp neighbors 10.0.0.2');

describe('device-tool guard', () => {
  it('strict: the RAW\'s read-only commands pass through to the device, others are refused', async () => {
    const id = await setUp('strict');
    const ok = await exec(id, 'show ip bgp neighbors 10.0.0.2');
    expect(ok.isError).toBe(false);
    expect(ok.text).toMatch(/Administratively shut down/);
    const offList = await exec(id, 'show ip route');
    expect(offList).toMatchObject({ isError: true, text: expect.stringMatching(/strict mode: "show ip route" is not a command of the RAW/) });
    const other = await exec(id, 'show version', 'R2');
    expect(other.text).toMatch(/about R1; device tools may not touch R2/);
    const types = relay!.incidents.timeline(id).map((e) => e.type);
    expect(types.filter((t) => t === 'device.exec')).toHaveLength(1);
    expect(types.filter((t) => t === 'device.refused')).toHaveLength(2);
    // Where the run is in its RAW, for the tray and the window: only allowed calls move it.
    expect(relay!.incidents.get(id)?.progress).toMatchObject({ step: 'validate_neighbor_state', index: 2, total: 8 });
  });

  it('hybrid: any show command, but never configuration through exec_cli', async () => {
    const id = await setUp('hybrid');
    const extra = await exec(id, 'show ip interface brief');
    expect(extra.isError, extra.text).toBe(false);
    expect(extra.text).toMatch(/GigabitEthernet1/);
    expect((await exec(id, 'configure terminal')).text).toMatch(/read-only show command/);
    expect((await exec(id, 'show version ; reload')).isError).toBe(true);
  });

  it('refuses configuration before an approval and leaves the lab unchanged', async () => {
    const id = await setUp();
    const early = await config(id, REPAIR);
    expect(early).toMatchObject({ isError: true, text: expect.stringMatching(/no approval yet/) });
    expect(lab.lab.configChanges()).toBe(0);
    expect(neighborState().ok && neighborState()).toMatchObject({ output: expect.stringMatching(/Administratively shut down/) });
  });

  it('after APPROVED: other lines refused, the exact lines applied once, the neighbor comes back', async () => {
    const id = await setUp();
    expect((await tools!.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR })).json?.status).toBe('pending');
    expect((await config(id, REPAIR)).text).toMatch(/no approval yet/);
    await decideAs(relay!, id, 'APPROVED', 'alice@example.net');

    const extra = await config(id, [...REPAIR, 'neighbor 10.0.0.6 shutdown']);
    expect(extra.text).toMatch(/only the approved lines/);
    const otherDevice = await config(id, REPAIR, 'R2');
    expect(otherDevice.text).toMatch(/approval covers R1/);
    expect(lab.lab.configChanges()).toBe(0);

    // Verbatim: what the human read is what runs; only configure terminal / end and trailing blanks are not lines.
    const reworded = await config(id, ['router bgp 65001', 'no  neighbor 10.0.0.2 shutdown']);
    expect(reworded.text).toMatch(/only the approved lines may be applied, verbatim/);
    const recased = await config(id, ['ROUTER BGP 65001', 'no neighbor 10.0.0.2 shutdown']);
    expect(recased.isError).toBe(true);
    expect(lab.lab.configChanges()).toBe(0);

    const applied = await config(id, ['configure terminal', 'router bgp 65001  ', 'no neighbor 10.0.0.2 shutdown', 'end']);
    expect(applied.isError, applied.text).toBe(false);
    expect(lab.lab.configChanges()).toBe(1);
    const again = await config(id, REPAIR);
    expect(again.text).toMatch(/already applied/);
    expect(lab.lab.configChanges()).toBe(1);
    expect(relay!.incidents.timeline(id).map((e) => e.type)).toContain('device.config_applied');
    expect((await exec(id, 'show ip bgp neighbors 10.0.0.2')).text).toMatch(/BGP state = Established/);
  });

  it.skipIf(Boolean(noPostgres))('on PostgreSQL: with the database away the claim cannot be recorded, so nothing reaches the device and the approval still stands', async () => {
    const pool = createPool({ url: await pg.freshDatabase(), logger: silent, connectTimeoutMs: 500 });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    const id = await setUp('strict', await createPgStore({ pool, relayId: 'relay-1', retention: 1000, logger: silent, retryMaxMs: 100 }));
    await tools!.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR });
    await decideAs(relay!, id, 'APPROVED', 'alice@example.net');
    await pg.server().stop('fast');
    try {
      const refused = await config(id, REPAIR);
      expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/claim on the approval could not be recorded .*nothing was sent to R1; the approval still stands/) });
      expect(lab.lab.configChanges()).toBe(0);
    } finally {
      await pg.server().start();
    }
    const applied = await config(id, REPAIR);
    expect(applied.isError, applied.text).toBe(false);
    expect(lab.lab.configChanges()).toBe(1);
  });

  it('after DENIED: configuration refused, lab unchanged', async () => {
    const id = await setUp();
    await tools!.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR });
    await decideAs(relay!, id, 'DENIED', 'bob@example.net');
    expect((await config(id, REPAIR)).text).toMatch(/decision was DENIED/);
    expect(lab.lab.configChanges()).toBe(0);
  });
});
