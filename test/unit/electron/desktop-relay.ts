import type { Clock } from '../../../src/core/clock';
import { createMemoryBackend, createPersistentStore } from '../../../src/core/incidents/persistent-store';
import { loadConfig } from '../../../src/config/load';
import { createRelay, type Relay } from '../../../src/relay/create-relay';
import { ad000002, silent } from '../../helpers/relay';
import { createStubRuntime } from '../../helpers/stub-runtime';
import { laptopRelayCluster } from '../../../src/relay/laptop-cluster';

/** A real in-memory relay with the tray as its live approval channel, as main.ts wires it. */
export async function desktopRelay(env: Record<string, string> = {}, clock?: Clock): Promise<Relay> {
  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', RELAY_LOG_DIR: '/nonexistent-fault-relay-logs', ...env });
  const store = createPersistentStore({ backend: createMemoryBackend(), retention: config.INCIDENT_RETENTION, logger: silent });
  return createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR), config, store, agent: createStubRuntime(), logger: silent, extraChannels: () => ['desktop'], retryBaseMs: 50, ...(clock ? { clock } : {}) });
}

/** An incident whose run has started, as after a Splunk alert. */
export async function runningIncident(relay: Relay, device = 'R1'): Promise<string> {
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ system: device })) });
  const id = res.json().incident_id as string;
  if (relay.incidents.get(id)?.state !== 'running') throw new Error(`incident ${id} did not start running`);
  return id;
}

export const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

/** The agent asks for approval through the relay's one request path. */
export async function awaitingApproval(relay: Relay, device = 'R1'): Promise<string> {
  const id = await runningIncident(relay, device);
  const result = await relay.approvals.request({ incident_id: id, summary: 'Re-enable the BGP neighbor', device, commands: COMMANDS });
  if (result.status !== 'pending') throw new Error(`approval request was ${result.status}`);
  return id;
}
