import pino, { type Logger } from 'pino';
import { createWebexChannel, type OperatorRoom, type WebexChannel } from '../../src/adapters/channels/webex/webex-channel';
import type { OperatorChannel } from '../../src/core/approvals/operator-channel';
import { loadConfig } from '../../src/config/load';
import type { AgentRuntime } from '../../src/core/agent-runtime';
import { createMemoryBackend, createPersistentStore } from '../../src/core/incidents/persistent-store';
import { createRelay, type Relay, type RelayCluster } from '../../src/relay/create-relay';
import type { Clock } from '../../src/core/clock';
import type { IncidentStore } from '../../src/core/incidents/store';
import type { HeldRequests } from '../../src/core/approvals/held-requests';
import type { DeviceTools } from '../../src/core/changes/device-contract';
import type { ProxySettings } from '../../src/adapters/net/proxy';
import { testLogDir } from './log-dir';
import type { QuarantineBackend } from '../../src/core/quarantine/entry';
import type { AddressBook } from '../../src/runbooks/plan-devices';
import { laptopRelayCluster } from '../../src/relay/laptop-cluster';

export const silent = pino({ level: 'silent' });

/** The settings a test relay runs with, plus `env` (a channel's factory reads its own from them). */
export function testConfig(env: Record<string, string> = {}) {
  // No spare session unless a test asks: most count the sessions their alerts make (spares: test/relay/spare-session.test.ts).
  return loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', RELAY_LOG_DIR: testLogDir(), AGENT_SPARE_SESSION: 'off', ...env });
}

/**
 * A relay on an in-memory store, answering through `app.inject()`. With `room` (a stand-in for the
 * Webex bot) the Webex channel is asked first, as the settings' channel list would; its card clicks
 * are fed through `webex.onCardSubmission`.
 */
export async function relayForTest(opts: {
  agent: AgentRuntime;
  env?: Record<string, string>;
  clock?: Clock;
  store?: IncidentStore;
  deliveryWaitMs?: number;
  logger?: Logger;
  room?: OperatorRoom;
  channels?: readonly OperatorChannel[];
  deviceTools?: DeviceTools;
  extraChannels?: () => string[];
  proxy?: ProxySettings;
  postCheckPaceS?: number;
  /** Where quarantined devices are kept (a data folder's file, to restart on); default memory. */
  quarantine?: QuarantineBackend;
  /** Where held approval requests are kept (a data folder's file or the team's table, to restart on); default memory. */
  held?: HeldRequests;
  /** Where a plan's other devices are found (the simulated lab's addresses). */
  addressBook?: AddressBook;
  /** The relay's cluster; default a laptop relay alone on the config's data folder. */
  cluster?: RelayCluster;
}): Promise<Relay & { webex?: WebexChannel }> {
  const config = testConfig(opts.env);
  const store = opts.store ?? createPersistentStore({ backend: createMemoryBackend(), retention: config.INCIDENT_RETENTION, logger: silent });
  const logger = opts.logger ?? silent;
  const webex = opts.room ? createWebexChannel({ room: opts.room, roomId: config.MSG_ROOM_ID, approvers: config.MSG_APPROVERS, logger }) : undefined;
  const relay = await createRelay({
    cluster: opts.cluster ?? laptopRelayCluster(config.RELAY_DATA_DIR, { ...(opts.quarantine ? { quarantine: opts.quarantine } : {}), ...(opts.held ? { held: opts.held } : {}) }),
    config,
    store,
    agent: opts.agent,
    logger,
    clock: opts.clock,
    deliveryWaitMs: opts.deliveryWaitMs,
    retryBaseMs: 50,
    channels: [...(webex ? [webex] : []), ...(opts.channels ?? [])],
    deviceTools: opts.deviceTools,
    extraChannels: opts.extraChannels,
    proxy: opts.proxy,
    ...(opts.postCheckPaceS !== undefined ? { postCheckPaceS: opts.postCheckPaceS } : {}),
    ...(opts.addressBook ? { addressBook: opts.addressBook } : {}),
  });
  return Object.assign(relay, webex ? { webex } : {});
}

export const ad000002 = (over: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  sid: 'scheduler__admin__search__RMD5_at_1700000000_42',
  search_name: 'BGP neighbor admin down',
  app: 'search',
  owner: 'admin',
  results_link: 'https://splunk.example.net:8000/app/search/search?sid=42',
  ...top,
  result: {
    alert_def_id: 'AD000002',
    system: 'R1',
    _time: '1700000000',
    device_ip: '192.0.2.11',
    neighbor_ip: '10.0.0.2',
    vrf_name: 'default',
    neighbor_as: '65002',
    _raw: 'Nov 21 10:00:00 R1 %BGP-5-ADJCHANGE: neighbor 10.0.0.2 Down Admin. shutdown',
    ...over,
  },
});
