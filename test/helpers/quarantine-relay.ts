import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { newToken } from '../../src/core/operators/operators';
import type { QuarantineBackend } from '../../src/core/quarantine/entry';
import type { HeldRequests } from '../../src/core/approvals/held-requests';
import type { IncidentStore } from '../../src/core/incidents/store';
import type { Clock } from '../../src/core/clock';
import type { Relay } from '../../src/relay/create-relay';
import { untilIncident } from './incident-waits';
import { connectMcp } from './mcp-client';
import { relayForTest } from './relay';
import { createStubRuntime } from './stub-runtime';
import { tempDir } from './temp-dir';
import { unrollableDevice } from './unrollable-device';
import { decideAs } from './decide-as';

export const ana = newToken();
export const vic = newToken();
export const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

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

/** A relay with an approver and a viewer, over a device whose rollbacks fail (unless told) or a real device server; closed by `close()`. */
export async function quarantineRelay(opts: { quarantine?: QuarantineBackend; held?: HeldRequests; store?: IncidentStore; clock?: Clock; device?: ReturnType<typeof unrollableDevice>; deviceServer?: { url: string; token: string }; postCheckPaceS?: number } = {}) {
  const server = opts.deviceServer;
  const relay: Relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', OPERATORS_FILE: operatorsFile(), ...(server ? { DEVICE_MCP_URL: server.url, DEVICE_MCP_TOKEN: server.token } : {}) },
    extraChannels: () => ['desktop'],
    ...(server ? {} : { deviceTools: opts.device ?? unrollableDevice() }),
    postCheckPaceS: opts.postCheckPaceS ?? 0,
    ...(opts.quarantine ? { quarantine: opts.quarantine } : {}),
    ...(opts.held ? { held: opts.held } : {}),
    ...(opts.store ? { store: opts.store } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const fire = async (neighbor: string) =>
    (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor })) })).json().incident_id as string;
  const ask = (id: string, commands = REPAIR) => tools.call('request_approval', { incident_id: id, summary: 'unshut the neighbor', device: 'R1', commands });
  const clear = (name: string, token?: string) => relay.app.inject({ method: 'POST', url: `/devices/${name}/clear`, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const health = async () => (await relay.app.inject({ url: '/health' })).json<{ status: string; reasons?: string[]; quarantined_devices?: { device: string }[] }>();
  /** An incident on R1 whose approved change went on and could not be rolled back. */
  const unrolled = async () => {
    const id = await fire('10.0.0.2');
    expect((await ask(id)).json).toMatchObject({ status: 'pending' });
    await decideAs(relay, id, 'APPROVED', 'ana@example.net');
    const applied = await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    await untilIncident(relay, id, (_i, timeline) => timeline.some((e) => e.type === 'device.quarantined'));
    return id;
  };
  const close = async () => {
    for (const c of [device, tools, relay]) await c.close();
  };
  return { relay, device, fire, ask, clear, health, unrolled, close };
}

