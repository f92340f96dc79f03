import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { createAgentClient, type AgentClient } from '../adapters/agent/client';
import type { createDeferredRuntime } from '../adapters/agent/deferred';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../adapters/agent/embedded';
import { createRuntimeFilesCheck, SHIPPED_MANIFEST, type RuntimeFilesCheck } from '../adapters/agent/integrity';
import { externalRuntimeManagedWarnings } from '../adapters/agent/managed-config';
import { createRuntimeConfigCheck, type RuntimeConfigCheck } from '../adapters/agent/runtime-config-check';
import type { SecretScrubber } from '../adapters/log/secret-scrubber';
import type { ProxySettings } from '../adapters/net/proxy';
import { OTLP_EXPORT_ENV } from '../adapters/telemetry/settings';
import { SECRET_KEYS, type RelayConfig } from '../config/schema';
import type { Relay } from './relay-contract';
import { writeRuntimeAttach } from './runtime-attach-file';

/**
 * What the embedded runtime must not inherit: the relay's secrets, and the way past the device guard
 * (the device server's URL, its token, the inventory it runs on). Its agents reach devices through
 * the relay's `/device-mcp` only, where approvals and the timeline are enforced. Nor the OTLP
 * exporter's endpoint and key: the relay's traces carry identifiers only, opencode's would not.
 */
export const RUNTIME_OMIT_ENV: readonly string[] = [...SECRET_KEYS, 'TEAM_DECISION_KEY_FILE', 'DEVICE_MCP_URL', 'DEVICE_INVENTORY', 'DEVICE_SERVER_TOKEN', ...OTLP_EXPORT_ENV];

/** Where the embedded runtime's agents reach the relay's endpoints (`/mcp`, `/device-mcp`). */
export function localUrl(listenUrl: string, path: string): string {
  const u = new URL(listenUrl);
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]' || u.hostname === '::') u.hostname = '127.0.0.1';
  return `${u.origin}${path}`;
}

/**
 * The relay's agent runtime, once the relay listens: the configured one (AGENT_URL), or an embedded
 * `opencode serve` it supervises, whose agents find the relay's tools at its URL. Runs are held while
 * the runtime's files or its reported configuration differ from what shipped. On failure everything
 * it set up is undone before the error is thrown.
 */
export async function startRuntime(deps: {
  config: RelayConfig;
  relay: Relay;
  agent: ReturnType<typeof createDeferredRuntime>;
  logger: Logger;
  proxy: ProxySettings;
  url: string;
  dataDir: string;
  pinnedRuntimeEnv: Record<string, string>;
  opts: { runtimeEnv?: Record<string, string>; scrubber?: SecretScrubber; opencodeManagedDir?: string };
}) {
  const { config, relay, agent, logger, proxy, url, dataDir, pinnedRuntimeEnv, opts } = deps;
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
  const stop = () => {
    offRuntimeFilesWarning();
    offRuntimeFilesHold();
    for (const off of offConfigCheck) off();
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
    stop();
    throw error;
  }
  return {
    embedded,
    /** Runs `kick` each time the embedded runtime is ready again (after the shipped files and configuration are checked); until the returned function is called. */
    onReady(kick: () => void): () => void {
      const off = embedded?.onState((state) => {
        if (state !== 'ready') return;
        runtimeFiles?.runtimeStarted();
        // Asked before any delivery: opencode lost a session's messages when asked beside the first one.
        void (configCheck?.check() ?? Promise.resolve()).finally(kick);
      });
      return () => off?.();
    },
    stop,
  };
}
export type HeadlessRuntime = Awaited<ReturnType<typeof startRuntime>>;
