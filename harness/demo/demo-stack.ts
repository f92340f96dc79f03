import path from 'node:path';
import type { Clock } from '../../src/core/clock';
import type { Logger } from 'pino';
import { request } from 'undici';
import { z } from 'zod';
import { listArtifactGroups, loadArtifactGroup } from '../../src/runbooks/load';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import { startLab, type RunningLab } from '../ios-lab/server';
import { labAddressBook, loadInventory } from '../ios-lab/inventory';
import type { AddressBook } from '../../src/runbooks/plan-devices';
import { startHeadlessRelay, type RunningRelay } from '../../src/relay/start-headless';
import { createDemoBrain, type RemediationTask, type RemediationVariant } from './brain';
import { demoRuntimeHome } from '../../src/adapters/agent/runtime-home';
import { withoutSnapshots } from './no-snapshots';
import { scriptedProviderConfig, startScriptedModel, type Script, type ScriptedModel } from './scripted-model';
import { errorText } from '../../src/core/error-body';

export interface DemoStackOptions {
  /** The project opencode runs in: `.opencode/agent/*.md`, `opencode.json`, `intelligence-artifacts/`, `kb/`. */
  projectDir: string;
  /** Relay data and the runtime's own home; a fresh folder per run keeps runs apart. */
  dataDir: string;
  /** RELAY_LOG_DIR; default `<projectDir>/logs`, beside the agent's own log. */
  logDir?: string;
  logger: Logger;
  /** The lab's delay from `no neighbor … shutdown` to Established. */
  convergeDelayMs?: number;
  /** Caps the RAW's waits in the scripted model (seconds). */
  maxSleepS?: number;
  variantFor?: (task: RemediationTask) => RemediationVariant;
  /** Live approval channels besides none: without one the relay treats approvals as unattended. */
  approvalChannels?: string[];
  /** A real model (`provider/model`) instead of the scripted one; the runtime then uses the user's own opencode home. */
  realModel?: string;
  /** Another scripted model instead of the demo brain (tests: an adversarial one). */
  script?: Script;
  /** Device tools elsewhere (the SSH device server on real routers): no simulated lab is started. */
  deviceMcpUrl?: string;
  /** Where a plan's other devices are found (with `deviceMcpUrl`); default the simulated lab's inventory. */
  addressBook?: AddressBook;
  /** Extra relay settings (e.g. REMEDIATION_MODE). */
  relayEnv?: Record<string, string>;
  /** The relay's clock (the demo and the eval pin it, so the change policy's verdict does not depend on the day). */
  clock?: Clock;
  /**
   * The scripted runtime takes opencode's per-step git snapshots as a relay's own runtime does
   * (default off: no-snapshots.ts). A run stopped mid-step ends differently without them.
   */
  snapshots?: boolean;
}

export interface DemoStack {
  /** The simulated lab; absent when `deviceMcpUrl` points at other device tools. */
  lab?: RunningLab;
  relay: RunningRelay;
  /** Absent with a real model. */
  model?: ScriptedModel;
  /** Resolves once opencode reports the relay, device and kb MCP servers connected. */
  toolsConnected(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const mcpStatusSchema = z.record(z.string(), z.looseObject({ status: z.string(), error: z.string().optional() }));
export const REQUIRED_MCP = ['relay', 'device', 'kb'] as const;

/**
 * The whole product on loopback: the device lab, the scripted model (unless a real one is
 * named), and the relay with its embedded opencode runtime whose device tools go through the
 * relay's guard to the lab. Nothing here injects faults or fires alerts; callers do.
 */
export async function startDemoStack(opts: DemoStackOptions): Promise<DemoStack> {
  const { logger, projectDir } = opts;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => logger.warn({ err: error }, 'demo part did not stop cleanly'));
    stops.length = 0;
  };
  try {
    const groups = await loadValidGroups(path.join(projectDir, 'intelligence-artifacts'));
    let lab: RunningLab | undefined;
    if (!opts.deviceMcpUrl) {
      lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: opts.convergeDelayMs ?? 3_000, logger: logger.child({ component: 'lab' }) });
      stops.push(lab.stop);
    }

    let model: ScriptedModel | undefined;
    let runtimeEnv: Record<string, string>;
    if (opts.realModel) {
      runtimeEnv = { OPENCODE_CONFIG_CONTENT: JSON.stringify({ model: opts.realModel }) };
    } else {
      model = await startScriptedModel(opts.script ?? createDemoBrain({ groups, projectDir, variantFor: opts.variantFor, maxSleepS: opts.maxSleepS }));
      stops.push(model.stop);
      const home = demoRuntimeHome(path.join(opts.dataDir, 'runtime-home'), projectDir);
      runtimeEnv = {
        ...(opts.snapshots ? home : withoutSnapshots(home)),
        OPENCODE_CONFIG_CONTENT: JSON.stringify(scriptedProviderConfig(model.baseURL)),
      };
    }

    const channels = opts.approvalChannels ?? [];
    const relay = await startHeadlessRelay({
      env: {
        RELAY_HOST: '127.0.0.1',
        RELAY_PROJECT_DIR: projectDir,
        RELAY_DATA_DIR: path.join(opts.dataDir, 'relay'),
        RELAY_LOG_DIR: opts.logDir ?? path.join(projectDir, 'logs'),
        DEVICE_MCP_URL: opts.deviceMcpUrl ?? lab!.mcpUrl,
        REMEDIATION_MODE: 'strict',
        ...opts.relayEnv,
      },
      logger,
      port: 0,
      runtimeEnv,
      extraChannels: () => channels,
      ...(opts.clock ? { clock: opts.clock } : {}),
      // The relay's post-check waits as long as the scripted agent's own checks do.
      ...(opts.maxSleepS !== undefined ? { postCheckPaceS: opts.maxSleepS } : {}),
      // The lab's routers are reached through DEVICE_MCP_URL, so their addresses come from here.
      addressBook: opts.addressBook ?? (lab ? labAddressBook(await loadInventory()) : undefined),
    });
    stops.push(relay.stop);

    return {
      ...(lab ? { lab } : {}),
      relay,
      model,
      toolsConnected: (timeoutMs = 30_000) => toolsConnected(relay, timeoutMs),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Every valid group in the folder, so a new runbook runs without code changes; an invalid one is
 * left out here (ia-reader then answers MISSING for it) and reported by `artifacts:validate`.
 */
async function loadValidGroups(dir: string): Promise<Map<string, ArtifactGroup>> {
  const groups = new Map<string, ArtifactGroup>();
  for (const summary of await listArtifactGroups(dir)) {
    if (summary.valid) groups.set(summary.alert_def_id, await loadArtifactGroup(dir, summary.alert_def_id));
  }
  return groups;
}

/**
 * opencode connects its MCP servers as it starts; an alert fired before would run without tools.
 * Nothing announces the connection, so this asks `GET /mcp` until all three are connected.
 */
async function toolsConnected(relay: RunningRelay, timeoutMs: number): Promise<void> {
  const endpoint = relay.embedded?.endpoint;
  if (!endpoint) return;
  const auth = `Basic ${Buffer.from(`${endpoint.username}:${endpoint.password}`).toString('base64')}`;
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      const res = await request(`${endpoint.url}/mcp`, { headers: { authorization: auth }, headersTimeout: 5_000 });
      const status = mcpStatusSchema.safeParse(await res.body.json());
      if (status.success) {
        const missing = REQUIRED_MCP.filter((name) => status.data[name]?.status !== 'connected');
        if (missing.length === 0) return;
        last = missing.map((name) => `${name}: ${status.data[name]?.status ?? 'absent'}${status.data[name]?.error ? ` (${status.data[name]?.error})` : ''}`).join(', ');
        if (missing.some((name) => status.data[name]?.status === 'failed')) break;
      }
    } catch (error) {
      last = errorText(error);
    }
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the agent runtime's tools are not connected: ${last}`);
}
