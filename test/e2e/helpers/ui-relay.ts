import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createAgentClient } from '../../../src/adapters/agent/client';
import { loadConfig } from '../../../src/config/load';
import { createFileBackends } from '../../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../../src/core/incidents/persistent-store';
import { createRelay, type Relay } from '../../../src/relay/create-relay';
import type { SignInLinks } from '../../../src/relay/sign-in';
import { finishingScript, scriptedProviderConfig, startScriptedModel, type ScriptedModel } from '../../fakes/scripted-model';
import { startOpencode, type OpencodeHarness } from '../../helpers/opencode';
import { laptopRelayCluster } from '../../../src/relay/laptop-cluster';
import type { DeviceTools } from '../../../src/core/changes/device-contract';
import type { AddressBook } from '../../../src/runbooks/plan-devices';

export interface UiRelay {
  relay: Relay;
  url: string;
  runtime: OpencodeHarness;
  model: ScriptedModel;
  toolsToken: string;
  stop(): Promise<void>;
}

/**
 * The relay as the headless entry builds it (conf store on disk, the real opencode server with a
 * scripted model), with the read-only UI mounted behind its bearer. The tray's desktop channel is
 * declared live so an approval stays pending for the view to show.
 */
export async function startUiRelay(opts: {
  distDir: string;
  logger: Logger;
  env?: Record<string, string>;
  withoutModel?: boolean;
  signIn?: SignInLinks;
  /** Device tools (the simulated lab in process) and where a plan's other devices are found: the relay's own previews of a plan. */
  devices?: { tools: DeviceTools; addressBook: AddressBook };
}): Promise<UiRelay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fault-relay-e2e-'));
  const model = await startScriptedModel(finishingScript);
  // withoutModel: the runtime as a newcomer has it before choosing one (the scripted model is started but never named).
  const runtime = await startOpencode({ ...(opts.withoutModel ? {} : { configContent: scriptedProviderConfig(model.baseURL) }), logger: opts.logger });
  const toolsToken = 'e2e-tools-token-5b7e';
  const config = loadConfig({
    AGENT_URL: runtime.endpoint.url,
    AGENT_SERVER_USERNAME: runtime.endpoint.username,
    AGENT_SERVER_PASSWORD: runtime.endpoint.password,
    RELAY_DATA_DIR: dataDir,
    RELAY_LOG_DIR: join(dataDir, 'logs'),
    RELAY_TOOLS_TOKEN: toolsToken,
    ...opts.env,
  });
  const store = createPersistentStore({
    ...((b) => ({ backend: b.open, archive: b.archive }))(createFileBackends(dataDir)),
    timelineDir: join(dataDir, 'timelines'),
    retention: config.INCIDENT_RETENTION,
    logger: opts.logger,
  });
  const agent = createAgentClient(runtime.endpoint, { logger: opts.logger, timeouts: { headersMs: 5_000 } });
  const relay = await createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR),
    config,
    store,
    agent,
    logger: opts.logger,
    extraChannels: () => ['desktop'],
    uiDistDir: opts.distDir,
    ...(opts.signIn ? { signIn: opts.signIn } : {}),
    ...(opts.devices ? { deviceTools: opts.devices.tools, addressBook: opts.devices.addressBook } : {}),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  return {
    relay,
    url,
    runtime,
    model,
    toolsToken,
    async stop() {
      await relay.close();
      await agent.close();
      await runtime.stop();
      await model.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
