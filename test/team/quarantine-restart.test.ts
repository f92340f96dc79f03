import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import type { DeviceTools } from '../../src/core/changes/device-contract';
import { newToken } from '../../src/core/operators/operators';
import { api, stubRuntime, untilIncident } from '../frr/relay-killed-helpers';
import { serveDeviceStandIn } from '../helpers/device-stand-in-server';
import { connectMcp } from '../helpers/mcp-client';
import type { RelayProcess } from '../helpers/relay-process';
import { waitUntil } from '../helpers/opencode';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { tempDir } from '../helpers/temp-dir';
import { unrollableDevice } from '../helpers/unrollable-device';
import { teamRelay } from './team-process';

/**
 * A quarantine decided while the team's database is away is written to the relay's data folder
 * first: a relay killed -9 before the database is back loses nothing. Started again while the
 * database is still away, it waits for it (serving nothing, naming the device), writes the quarantine
 * there before anything else, and from then on every relay of the team refuses the device.
 */
const pg = usePostgres();
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const TOOLS = 'quarantine-restart-tools-token';
const DEVICE_TOKEN = 'quarantine-restart-device-token';

/** R1's change, whose confirm the router answers (once the test lets it) with a rollback it could not verify. */
function refusingConfirm() {
  const device = unrollableDevice({ readsWaitFor: new Promise(() => undefined) });
  let asked!: () => void;
  const confirmAsked = new Promise<void>((resolve) => (asked = resolve));
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const tools: DeviceTools = {
    ...device,
    async confirmChange(name, id) {
      asked();
      await answered;
      return device.rollbackChange(name, id, 'the router refused the commit');
    },
  };
  return { tools, confirmAsked, answer };
}

describe.skipIf(Boolean(noPostgres))('team relay: a quarantine decided while PostgreSQL is down', () => {
  it('outlives a kill -9: the relay started again while the database is away waits naming R1, writes the quarantine once it is back, and both relays refuse R1', { timeout: 180_000 }, async () => {
    const url = await pg.freshDatabase();
    const device = refusingConfirm();
    const ana = newToken();
    const operators = join(tempDir('fault-relay-quarantine-restart-ops-'), 'operators.yaml');
    writeFileSync(operators, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 }] }));
    const env = {
      AGENT_URL: await stubRuntime(),
      RELAY_TOOLS_TOKEN: TOOLS,
      OPERATORS_FILE: operators,
      DEVICE_MCP_URL: await serveDeviceStandIn(device.tools, DEVICE_TOKEN),
      DEVICE_MCP_TOKEN: DEVICE_TOKEN,
      RELAY_HOST: '127.0.0.1',
    };
    const dataDir = tempDir('fault-relay-quarantine-restart-data-');
    const a = await teamRelay(url, { ...env, RELAY_DATA_DIR: dataDir });
    const b = await teamRelay(url, env);
    const asks = async (relay: RelayProcess, neighbor: string) => {
      const alert = await api<{ incident_id: string }>(`${relay.url}/fault-alert`, { method: 'POST', body: buildSplunkAlert({ device: 'R1', neighbor }) });
      expect(alert.status).toBe(202);
      await untilIncident(relay, alert.json.incident_id, (i) => i.state === 'running', 'running');
      const tools = await connectMcp(`${relay.url}/mcp`, TOOLS);
      onTestFinished(() => tools.close());
      const asked = await tools.call('request_approval', { incident_id: alert.json.incident_id, summary: 'unshut the neighbor', device: 'R1', commands: REPAIR });
      return { id: alert.json.incident_id, answer: asked.json, text: asked.text };
    };

    // A change on R1 through relay A, approved by a person; its confirm reaches the router.
    const first = await asks(a, '10.0.0.2');
    expect(first.answer?.status, first.text).toBe('pending');
    expect((await api(`${a.url}/incidents/${first.id}/decision`, { method: 'POST', token: ana.token, body: { request_id: first.answer?.request_id, decision: 'APPROVED' } })).status).toBe(200);
    const deviceMcp = await connectMcp(`${a.url}/device-mcp`, TOOLS);
    onTestFinished(() => deviceMcp.close());
    const applied = await deviceMcp.call('config_cli', { incident_id: first.id, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    const change = (await untilIncident(a, first.id, (i) => i.change?.state === 'pending', 'holding a pending change')).change!;
    void api(`${a.url}/incidents/${first.id}/confirm`, { method: 'POST', token: ana.token, body: { change_id: change.change_id } }).catch(() => undefined);
    await device.confirmAsked;

    // The database goes away; then the router answers that the change could not be put back.
    await pg.server().stop('fast');
    let up = false;
    onTestFinished(async () => {
      if (!up) await pg.server().start();
    });
    device.answer();
    const kept = () => (JSON.parse(readFileSync(join(dataDir, 'quarantine.json'), 'utf8')) as { devices: { device: string; incident_id: string }[] }).devices;
    const reasons = async (relay: RelayProcess) => (await api<{ reasons?: string[] }>(`${relay.url}/health`)).json.reasons?.join('\n') ?? '';
    await waitUntil(async () => /^R1 is quarantined since .*Not yet written to the store/m.test(await reasons(a)), 'relay A names R1 quarantined and not yet written', { timeoutMs: 60_000 });
    expect(kept()).toMatchObject([{ device: 'R1', incident_id: first.id }]);

    // kill -9 before the database is back, and started again while it is still away.
    await a.stop('SIGKILL');
    let waiting!: (line: string) => void;
    const saidWaiting = new Promise<string>((resolve) => (waiting = resolve));
    let listening = false;
    const restarted = teamRelay(url, { ...env, RELAY_DATA_DIR: dataDir }, { onLine: (line) => line.includes('not yet in the team database') && waiting(line) }).then((r) => {
      listening = true;
      return r;
    });
    // Awaited below; a relay that exits meanwhile fails the test there, not as an unhandled rejection.
    restarted.catch(() => undefined);
    const said = JSON.parse(await saidWaiting) as { msg: string; devices: string[] };
    expect(said.devices).toEqual(['R1']);
    expect(said.msg).toMatch(/R1 is quarantined on this relay and not yet in the team database: waiting for the database to write it there before anything else \(this relay serves nothing meanwhile\)/);
    expect(listening).toBe(false);
    expect(kept().map((d) => d.device)).toEqual(['R1']);

    // The database is back: the restarted relay writes the quarantine there, then takes it out of its folder.
    await pg.server().start();
    up = true;
    const again = await restarted;
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    expect((await db.query('SELECT device, incident_id FROM quarantined_devices')).rows).toEqual([{ device: 'R1', incident_id: first.id }]);
    expect(kept()).toEqual([]);

    // Every relay of the team refuses R1: the other one, and the one started again.
    await waitUntil(async () => /^R1 is quarantined since /m.test(await reasons(b)), 'relay B names R1 on /health', { timeoutMs: 30_000 });
    for (const [relay, neighbor] of [[b, '10.0.0.3'], [again, '10.0.0.4']] as const) {
      const refused = await asks(relay, neighbor);
      expect(refused.answer, refused.text).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });
    }
  });
});
