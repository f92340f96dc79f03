import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { createAgentClient } from '../agent/client';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../agent/embedded';
import type { RuntimeEndpoint } from '../agent/types';
import { loadConfig } from '../config/load';
import { SECRET_KEYS, type RelayConfig } from '../config/schema';
import { createConfBackend } from '../incidents/conf-backend';
import { createPersistentStore } from '../incidents/persistent-store';
import type { IncidentStore, KeyValueBackend } from '../incidents/store';
import { createRelay, type Relay } from './create-relay';

export interface HeadlessOptions {
  env: Record<string, string | undefined>;
  logger: Logger;
  /** The tray passes its electron-store here; headless uses conf under RELAY_DATA_DIR. */
  backend?: KeyValueBackend;
  port?: number;
}

export interface RunningRelay {
  relay: Relay;
  config: RelayConfig;
  url: string;
  embedded?: EmbeddedRuntime;
  stop(): Promise<void>;
}

/**
 * Starts the relay with its real parts: the conf store, the agent runtime (the
 * configured one, or an embedded `opencode serve` it supervises) and the HTTP server.
 */
export async function startHeadlessRelay(opts: HeadlessOptions): Promise<RunningRelay> {
  const config = loadConfig(opts.env);
  const { logger } = opts;
  const dataDir = resolve(config.RELAY_DATA_DIR);

  let embedded: EmbeddedRuntime | undefined;
  let endpoint: RuntimeEndpoint;
  if (config.AGENT_URL) {
    endpoint = { url: config.AGENT_URL, username: config.AGENT_SERVER_USERNAME, password: config.AGENT_SERVER_PASSWORD as string };
  } else {
    embedded = await startEmbeddedRuntime({
      cwd: resolve(config.RELAY_PROJECT_DIR),
      logger,
      // The runtime and its MCP servers need none of the relay's own secrets.
      omitEnv: SECRET_KEYS.filter((k) => k !== 'RELAY_TOOLS_TOKEN'),
    });
    endpoint = embedded.endpoint;
    logger.info({ agent_url: endpoint.url }, 'embedded agent runtime ready');
  }

  // The relay's calls are small; a runtime that takes longer than this is starting up or stuck,
  // and the alert is better queued and retried than left hanging.
  const agent = createAgentClient(endpoint, { logger, timeouts: { headersMs: 5_000 } });
  const store: IncidentStore = createPersistentStore({
    backend: opts.backend ?? createConfBackend(dataDir),
    timelineDir: join(dataDir, 'timelines'),
    retention: config.INCIDENT_RETENTION,
    logger,
  });
  const relay = await createRelay({ config, store, agent, logger });
  // The runtime came back: deliver what waited for it now, not at the next backoff step.
  const offState = embedded?.onState((state) => {
    if (state === 'ready') relay.dispatcher.kick({ resetBackoff: true });
  });
  const url = await relay.listen({ port: opts.port });
  logger.info({ url, agent_url: agent.url, mode: config.REMEDIATION_MODE }, 'relay listening');

  let stopping: Promise<void> | undefined;
  return {
    relay,
    config,
    url,
    embedded,
    stop: () =>
      (stopping ??= (async () => {
        offState?.();
        await relay.close();
        await agent.close();
        await embedded?.stop();
      })()),
  };
}
