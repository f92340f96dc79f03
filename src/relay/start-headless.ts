import { settingSources, type SettingSource } from '../config/setting-sources';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { createAgentClient, type AgentClient } from '../adapters/agent/client';
import { createDeferredRuntime } from '../adapters/agent/deferred';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../adapters/agent/embedded';
import type { Clock } from '../core/clock';
import { loadConfig } from '../config/load';
import { SECRET_KEYS, type RelayConfig } from '../config/schema';
import { watchClockSteps } from '../core/clock-steps';
import { createFileBackends } from '../core/incidents/file-backend';
import { createPersistentStore } from '../core/incidents/persistent-store';
import type { IncidentStore, KeyValueBackend } from '../core/incidents/store';
import { channelsFromConfig } from '../adapters/channels';
import type { OperatorChannel } from '../core/approvals/operator-channel';
import { createRelay, type Relay } from './create-relay';
import { dataFolderKeeps, openTeamKeepingQuarantines, teamFolderKeeps } from './data-folder-keeps';
import type { DeviceServerLaunch } from '../adapters/devices/detached-server';
import { createSignInLinks, localOperator } from './sign-in';
import { removeRuntimeAttach, writeRuntimeAttach } from './runtime-attach-file';
import type { SecretScrubber } from '../adapters/log/secret-scrubber';
import { proxySettingsFromEnv } from '../adapters/net/proxy';
import { openTeamStore } from '../adapters/team/open';
import { readDecisionKey } from '../adapters/team/decision-seal';
import { CHANNELS_LEADER_LOCK, newRelayId } from '../adapters/team/coordinator';
import { holdChannelSockets } from '../adapters/team/leader-lock';
import { hostname } from 'node:os';
import { assertRuntimeFiles, createRuntimeFilesCheck, SHIPPED_MANIFEST, type RuntimeFilesCheck } from '../adapters/agent/integrity';
import { embeddedRuntimeEnv } from '../adapters/agent/runtime-env';
import { createRuntimeConfigCheck, type RuntimeConfigCheck } from '../adapters/agent/runtime-config-check';
import { OTLP_EXPORT_ENV } from '../adapters/telemetry/settings';
import { externalRuntimeManagedWarnings } from '../adapters/agent/managed-config';

export interface HeadlessOptions {
  env: Record<string, string | undefined>;
  logger: Logger;
  /** The tray passes electron-store instances here; headless uses conf under RELAY_DATA_DIR. */
  backends?: { open: KeyValueBackend; archive: KeyValueBackend };
  port?: number;
  clock?: Clock;
  /** Other live approval channels (the tray's desktop notifications). */
  extraChannels?: () => string[];
  /** Extra environment for the embedded runtime, e.g. OPENCODE_CONFIG_CONTENT with a model provider. */
  runtimeEnv?: Record<string, string>;
  /** The logger's scrubber: told the secrets the relay generates (tools token, runtime password). */
  scrubber?: SecretScrubber;
  /** Where each setting came from; default: everything in `env` from the environment. */
  settingSources?: Partial<Record<keyof RelayConfig, SettingSource>>;
  /** Caps the RAW's waits in the relay's post-check (a demo paces it like its scripted agent). */
  postCheckPaceS?: number;
  /** Where a plan's other devices are found when no DEVICE_INVENTORY says (a lab behind DEVICE_MCP_URL). */
  addressBook?: Parameters<typeof createRelay>[0]['addressBook'];
  /** How the detached device server is started (the tray: its own executable); default: node on scripts/devices.ts. */
  deviceServerLaunch?: DeviceServerLaunch;
  /** `npm run relay` on a laptop: the OS user at its terminal, an approver who signs in to /ui with a one-time link. */
  localOperator?: string;
  /** Where opencode's managed configuration lives on this machine; default the platform's (/etc/opencode on Linux). */
  opencodeManagedDir?: string;
}

export interface RunningRelay {
  relay: Relay;
  config: RelayConfig;
  url: string;
  embedded?: EmbeddedRuntime;
  /** The operator channels the settings asked for (Webex, Slack …), as the relay asks them. */
  channels: readonly OperatorChannel[];
  /** A new one-time sign-in link to /ui for the local operator (with `localOperator`); for their terminal only. */
  signInLink?: () => string;
  stop(): Promise<void>;
}

/** A channel's degraded state or warning (too many websockets, Socket Mode off, a foreign connection), in its own words. */
function channelWarnings(channels: readonly OperatorChannel[]): string[] {
  return channels.flatMap((c) => {
    const health = c.connection?.health();
    return [health?.degraded?.message, health?.warning?.message].filter((w): w is string => Boolean(w));
  });
}

/**
 * This relay's id on the team database: RELAY_ID, else host and port, so a relay restarted (a crash,
 * an upgrade) goes on with its own incidents at once instead of waiting for another to adopt them.
 */
function teamRelayId(config: RelayConfig, port: number | undefined): string {
  if (config.RELAY_ID) return config.RELAY_ID;
  const served = port ?? config.INGEST_PORT;
  return served === 0 ? newRelayId() : `${hostname()}:${served}`;
}

/** The team's decision key, from the setting or its file; a key read from a file joins the secrets no log line carries. */
function teamDecisionKey(config: RelayConfig, scrubber: SecretScrubber | undefined): string {
  const key = readDecisionKey(config);
  scrubber?.add(key);
  return key;
}

/**
 * What the embedded runtime must not inherit: the relay's secrets, and the way past the device guard
 * (the device server's URL, its token, the inventory it runs on). Its agents reach devices through
 * the relay's `/device-mcp` only, where approvals and the timeline are enforced. Nor the OTLP
 * exporter's endpoint and key: the relay's traces carry identifiers only, opencode's would not.
 */
export const RUNTIME_OMIT_ENV: readonly string[] = [...SECRET_KEYS, 'TEAM_DECISION_KEY_FILE', 'DEVICE_MCP_URL', 'DEVICE_INVENTORY', 'DEVICE_SERVER_TOKEN', ...OTLP_EXPORT_ENV];

/** Where the embedded runtime's agents reach the relay's endpoints (`/mcp`, `/device-mcp`). */
function localUrl(listenUrl: string, path: string): string {
  const u = new URL(listenUrl);
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]' || u.hostname === '::') u.hostname = '127.0.0.1';
  return `${u.origin}${path}`;
}

/**
 * Starts the relay with its real parts: the conf store, the operator channels the
 * settings ask for, the HTTP server, and the agent runtime (the configured one, or an
 * embedded `opencode serve` it supervises, started after the relay listens so its
 * agents find the relay's tools).
 */
export async function startHeadlessRelay(opts: HeadlessOptions): Promise<RunningRelay> {
  const config = loadConfig(opts.env);
  // Every outbound connection honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY; loopback never goes through it.
  const proxy = proxySettingsFromEnv(opts.env);
  const { logger } = opts;
  const dataDir = resolve(config.RELAY_DATA_DIR);
  // The embedded runtime's agent files and opencode.json decide every run's tools: as shipped, or no runtime (one line, exit 78).
  if (!config.AGENT_URL) assertRuntimeFiles(resolve(config.RELAY_PROJECT_DIR));
  // Its own HOME and XDG folders, and only a model from OPENCODE_CONFIG_CONTENT (or one line, exit 78).
  const pinnedRuntimeEnv = config.AGENT_URL ? {} : embeddedRuntimeEnv({ env: opts.env, dataDir, projectDir: resolve(config.RELAY_PROJECT_DIR) });

  // A team relay keeps incidents in PostgreSQL with the other relays on it (waited for while its data folder holds quarantines not yet there); the laptop in files.
  const teamDb = config.DATABASE_URL;
  const team = teamDb ? await openTeamKeepingQuarantines(() => openTeamStore({ url: teamDb, retention: config.INCIDENT_RETENTION, leaseMs: config.RELAY_LEASE_MS, logger, relayId: teamRelayId(config, opts.port), decisionKey: teamDecisionKey(config, opts.scrubber) }), { dataDir, logger }) : undefined;
  const backends = opts.backends ?? (team ? undefined : createFileBackends(dataDir));
  const store: IncidentStore =
    team?.store ??
    createPersistentStore({
      backend: backends!.open,
      archive: backends!.archive,
      timelineDir: join(dataDir, 'timelines'),
      retention: config.INCIDENT_RETENTION,
      logger,
    });

  // Set once the channels' sockets are placed under the team's leader lock (after the relay exists).
  const leadership: { current?: { role(): 'leader' | 'standby' } } = {};
  // Every channel its settings ask for (Webex, Slack …), each built by its own adapter; decisions come back through the relay once it attaches them.
  const channels = channelsFromConfig(config, { logger, proxy, ...(opts.clock ? { clock: opts.clock } : {}) });
  const agent = createDeferredRuntime();
  // Only a laptop relay has a person at its terminal; a team's relays are reached by personal tokens.
  const signIn = opts.localOperator !== undefined && !team ? createSignInLinks(localOperator(opts.localOperator)) : undefined;
  const relay = await createRelay({
    ...(signIn ? { signIn } : {}),
    ...(opts.postCheckPaceS !== undefined ? { postCheckPaceS: opts.postCheckPaceS } : {}),
    ...(opts.addressBook ? { addressBook: opts.addressBook } : {}),
    config,
    store,
    agent,
    logger,
    clock: opts.clock,
    channels,
    standby: () => leadership.current?.role() === 'standby',
    extraChannels: opts.extraChannels,
    proxy,
    settingSources: opts.settingSources ?? settingSources([['environment', opts.env]]),
    ...(team ? { team: team.coordinator, ...teamFolderKeeps(dataDir) } : dataFolderKeeps(dataDir)),
    ...(opts.deviceServerLaunch ? { deviceServerLaunch: opts.deviceServerLaunch } : {}),
    // The devices' credential variables (password_env …) are read from the relay's own settings.
    deviceServerEnv: opts.env,
  });
  // Its heartbeat first: an incident this relay accepts must never look like a dead relay's.
  if (team) {
    await team.coordinator.start().catch(async (error: unknown) => {
      await relay.close();
      await team.store.pool.end();
      throw error;
    });
  }
  // Degraded (too many websockets, Socket Mode off) or a foreign connection: a standing warning, not a log line only.
  // A wall-clock step moves every expiry and deadline at once: /health says so while it is recent.
  const clockSteps = watchClockSteps({ onStep: (step) => logger.warn(step, 'the wall clock stepped') });
  const offClockWarnings = relay.addStandingWarnings(clockSteps.warnings);
  const offChannelWarnings = relay.addStandingWarnings(() => channelWarnings(channels));
  opts.scrubber?.add(relay.toolsToken);
  opts.scrubber?.add(relay.terminalSecret);
  const url = await relay.listen({ port: opts.port });

  let embedded: EmbeddedRuntime | undefined;
  let offRuntimeFilesWarning = () => {};
  let offRuntimeFilesHold = () => {};
  let runtimeFiles: RuntimeFilesCheck | undefined;
  let configCheck: RuntimeConfigCheck | undefined;
  const offConfigCheck: (() => void)[] = [];
  /** What the runtime reports it runs with, against the shipped shape: runs are refused while they differ. */
  const watchConfig = async (client: AgentClient) => {
    if (!SHIPPED_MANIFEST.runtime) return;
    const check = (configCheck = createRuntimeConfigCheck({ read: () => client.reportedConfig(), shipped: SHIPPED_MANIFEST.runtime, logger }));
    offConfigCheck.push(relay.holdRunsWhile(check.problem), relay.addStandingWarnings(check.warnings), relay.alsoAskWithModel(check.check));
    await configCheck.start();
  };
  try {
    if (config.AGENT_URL) {
      // The relay's calls are small; a runtime slower than this is starting or stuck: queue and retry.
      const client = createAgentClient({ url: config.AGENT_URL, username: config.AGENT_SERVER_USERNAME, password: config.AGENT_SERVER_PASSWORD as string }, { logger, timeouts: { headersMs: 5_000 }, proxy });
      agent.attach(client);
      // A runtime started without the relay's pin reads the machine's managed configuration: named while it is there.
      offConfigCheck.push(relay.addStandingWarnings(() => externalRuntimeManagedWarnings(opts.opencodeManagedDir)));
      await watchConfig(client);
    } else {
      // And before each run: a file changed while the relay runs holds the queue (timeline, /health) until restored.
      runtimeFiles = createRuntimeFilesCheck(resolve(config.RELAY_PROJECT_DIR));
      offRuntimeFilesHold = relay.holdRunsWhile(runtimeFiles.problem);
      offRuntimeFilesWarning = relay.addStandingWarnings(runtimeFiles.warnings);
      embedded = await startEmbeddedRuntime({
        cwd: resolve(config.RELAY_PROJECT_DIR),
        logger,
        // The runtime needs none of the relay's own secrets, only the way to its tools.
        omitEnv: [...RUNTIME_OMIT_ENV],
        env: {
          ...pinnedRuntimeEnv,
          ...opts.runtimeEnv,
          RELAY_TOOLS_URL: localUrl(url, '/mcp'),
          RELAY_DEVICE_TOOLS_URL: localUrl(url, '/device-mcp'),
          RELAY_TOOLS_TOKEN: relay.toolsToken,
        },
      });
      opts.scrubber?.add(embedded.endpoint.password, { username: embedded.endpoint.username });
      const client = createAgentClient(embedded.endpoint, { logger, timeouts: { headersMs: 5_000 } });
      agent.attach(client);
      await watchConfig(client);
      writeRuntimeAttach(dataDir, { relay_url: localUrl(url, ''), agent_url: embedded.endpoint.url, username: embedded.endpoint.username, password: embedded.endpoint.password, project_dir: resolve(config.RELAY_PROJECT_DIR), terminal_secret: relay.terminalSecret });
      logger.info({ agent_url: embedded.endpoint.url }, 'embedded agent runtime ready');
    }
  } catch (error) {
    offRuntimeFilesWarning();
    clockSteps.stop();
    offClockWarnings();
    offRuntimeFilesHold();
    for (const off of offConfigCheck) off();
    await relay.close();
    await team?.store.pool.end();
    throw error;
  }
  relay.dispatcher.kick({ resetBackoff: true });
  // The runtime came back: deliver what waited for it now, not at the next backoff step.
  const offState = embedded?.onState((state) => {
    if (state !== 'ready') return;
    runtimeFiles?.runtimeStarted();
    // Asked before any delivery: opencode lost a session's messages when asked beside the first one.
    void (configCheck?.check() ?? Promise.resolve()).finally(() => relay.dispatcher.kick({ resetBackoff: true }));
  });
  // Every channel's socket under one rule: on a team only the leader holds them, taking them over when it gains the lock.
  const sockets = channels.flatMap((c) => (c.connection ? [{ name: c.name, connect: () => c.connection!.connect(), disconnect: () => c.connection!.disconnect() }] : []));
  // Not awaited: without the network a socket keeps retrying, and the relay must serve meanwhile.
  const held = holdChannelSockets({ sockets, logger, ...(team ? { lead: (gain: () => void, lose: () => void) => team.coordinator.lead(CHANNELS_LEADER_LOCK, gain, lose) } : {}) });
  if (team) leadership.current = held;
  // Listening is announced once this relay knows whether it holds the sockets or stands by.
  await held.first;
  logger.info({ url, agent_url: agent.url, mode: config.REMEDIATION_MODE, channels: channels.map((c) => c.name).join(',') || 'none' }, 'relay listening');

  let stopping: Promise<void> | undefined;
  return {
    relay,
    config,
    url,
    embedded,
    channels,
    ...(signIn ? { signInLink: () => `${localUrl(url, '/ui')}?token=${signIn.issue()}` } : {}),
    stop: () =>
      (stopping ??= (async () => {
        offState?.();
        offRuntimeFilesWarning();
        offRuntimeFilesHold();
        for (const off of offConfigCheck) off();
        offChannelWarnings();
        clockSteps.stop();
        offClockWarnings();
        for (const channel of channels) await channel.stop?.().catch((error: unknown) => logger.warn({ err: error, channel: channel.name }, 'an operator channel did not stop cleanly'));
        if (embedded) removeRuntimeAttach(dataDir);
        await team?.coordinator.stop();
        await relay.close();
        await team?.store.pool.end();
        await agent.close();
        await embedded?.stop();
      })()),
  };
}
