import { settingSources, type SettingSource } from '../config/setting-sources';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { createDeferredRuntime } from '../adapters/agent/deferred';
import type { EmbeddedRuntime } from '../adapters/agent/embedded';
import type { Clock } from '../core/clock';
import { loadConfig } from '../config/load';
import type { RelayConfig } from '../config/schema';
import { watchClockSteps } from '../core/clock-steps';
import type { KeyValueBackend } from '../core/incidents/store';
import { channelsFromConfig } from '../adapters/channels';
import type { OperatorChannel } from '../core/approvals/operator-channel';
import { createRelay, type Relay } from './create-relay';
import type { DeviceServerLaunch } from '../adapters/devices/detached-server';
import { createSignInLinks, localOperator } from './sign-in';
import { removeRuntimeAttach } from './runtime-attach-file';
import type { SecretScrubber } from '../adapters/log/secret-scrubber';
import { proxySettingsFromEnv } from '../adapters/net/proxy';
import { openRelayStore, startTeam } from './headless-store';
import { localUrl, startRuntime, type HeadlessRuntime } from './headless-runtime';
import { CHANNELS_LEADER_LOCK } from '../adapters/team/coordinator';
import { holdChannelSockets } from '../adapters/team/leader-lock';
import { assertRuntimeFiles } from '../adapters/agent/integrity';
import { embeddedRuntimeEnv } from '../adapters/agent/runtime-env';

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

export { RUNTIME_OMIT_ENV } from './headless-runtime';

/** A channel's degraded state or warning (too many websockets, Socket Mode off, a foreign connection), in its own words. */
function channelWarnings(channels: readonly OperatorChannel[]): string[] {
  return channels.flatMap((c) => {
    const health = c.connection?.health();
    return [health?.degraded?.message, health?.warning?.message].filter((w): w is string => Boolean(w));
  });
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

  const { team, store, cluster } = await openRelayStore(config, opts, dataDir);
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
    cluster,
    ...(opts.deviceServerLaunch ? { deviceServerLaunch: opts.deviceServerLaunch } : {}),
    // The devices' credential variables (password_env …) are read from the relay's own settings.
    deviceServerEnv: opts.env,
  });
  await startTeam(team, relay);
  // Degraded (too many websockets, Socket Mode off) or a foreign connection: a standing warning, not a log line only.
  // A wall-clock step moves every expiry and deadline at once: /health says so while it is recent.
  const clockSteps = watchClockSteps({ onStep: (step) => logger.warn(step, 'the wall clock stepped') });
  const offClockWarnings = relay.addStandingWarnings(clockSteps.warnings);
  const offChannelWarnings = relay.addStandingWarnings(() => channelWarnings(channels));
  opts.scrubber?.add(relay.toolsToken);
  opts.scrubber?.add(relay.terminalSecret);
  const url = await relay.listen({ port: opts.port });

  let runtime: HeadlessRuntime;
  try {
    runtime = await startRuntime({ config, relay, agent, logger, proxy, url, dataDir, pinnedRuntimeEnv, opts });
  } catch (error) {
    clockSteps.stop();
    offClockWarnings();
    await relay.close();
    await team?.store.pool.end();
    throw error;
  }
  const { embedded } = runtime;
  relay.dispatcher.kick({ resetBackoff: true });
  // The runtime came back: deliver what waited for it now, not at the next backoff step.
  const offState = runtime.onReady(() => relay.dispatcher.kick({ resetBackoff: true }));
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
        offState();
        runtime.stop();
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
