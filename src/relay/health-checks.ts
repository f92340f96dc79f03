import { request } from 'undici';
import type { QuarantineEntry } from '../core/quarantine/entry';
import { AgentRuntimeError, type AgentRuntime } from '../core/agent-runtime';
import type { ModelStatus } from '../core/delivery/model-check';
import type { StoreCheck } from '../core/incidents/store';
import type { ChannelHealth, OperatorChannel } from '../core/approvals/operator-channel';
import { errorText } from '../core/error-body';

/**
 * One operator channel on /health/deep, from its own status through the port. `standby`: a team
 * follower, whose socket the leader holds; `degraded`: the platform stopped it and the relay does not
 * retry (`reason` is the platform's code); `connecting`: down, retrying on its own.
 */
export interface ChannelHealthReport {
  configured: true;
  state: 'connected' | 'connecting' | 'standby' | 'degraded';
  connected: boolean;
  reason?: string;
  error?: string;
  warning?: { reason: string; message: string };
  last_event_at?: string;
}

/**
 * The messaging check: one entry per configured channel under `channels`, and a summary beside it in
 * the shape readers knew when Webex was the only channel (`connected`: every channel is; `standby`:
 * the rest stand by for the leader; `error`: the first channel's problem, named).
 */
export interface MessagingHealth {
  configured: boolean;
  connected: boolean;
  /** Team relays: another relay holds the channels' sockets; this one takes over if it dies. */
  standby?: boolean;
  last_event_at?: string;
  error?: string;
  channels?: Record<string, ChannelHealthReport>;
}

function channelReport(health: ChannelHealth, standby: boolean): ChannelHealthReport {
  const state: ChannelHealthReport['state'] = health.connected ? 'connected' : standby ? 'standby' : health.degraded ? 'degraded' : 'connecting';
  const error = state === 'degraded' ? health.degraded?.message : state === 'connecting' ? health.error : undefined;
  return {
    configured: true,
    state,
    connected: health.connected,
    ...(state === 'degraded' && health.degraded ? { reason: health.degraded.reason } : {}),
    ...(error ? { error } : {}),
    ...(health.warning ? { warning: health.warning } : {}),
    ...(health.last_event_at ? { last_event_at: health.last_event_at } : {}),
  };
}

/** `messaging` from the channels that hold a connection; `standby` is this relay's team role (a follower holds none). */
export function messagingHealth(channels: readonly OperatorChannel[], standby: boolean): MessagingHealth {
  const reports = Object.fromEntries(channels.flatMap((c) => (c.connection ? [[c.name, channelReport(c.connection.health(), standby)] as const] : [])));
  const all = Object.entries(reports);
  if (all.length === 0) return { configured: false, connected: false };
  const problem = all.find(([, r]) => r.state === 'degraded' || r.state === 'connecting');
  const lastEvent = all.map(([, r]) => r.last_event_at ?? '').sort().at(-1);
  return {
    configured: true,
    connected: all.every(([, r]) => r.connected),
    ...(!problem && all.some(([, r]) => r.state === 'standby') ? { standby: true } : {}),
    ...(lastEvent ? { last_event_at: lastEvent } : {}),
    ...(problem?.[1].error ? { error: `${problem[0]}: ${problem[1].error}` } : {}),
    channels: reports,
  };
}

/** The live event stream that feeds timelines and the dashboard. */
export interface EventStreamHealth {
  connected: boolean;
  last_event_at?: string;
  error?: string;
}

export interface DeepHealth {
  status: 'ok' | 'degraded';
  /** Standing configuration warnings, as on /health (shown as a banner by /ui and the tray). */
  warnings?: string[];
  checks: {
    agent_runtime: { ok: boolean; url: string; latency_ms: number; version?: string; error?: string; event_stream?: EventStreamHealth };
    /**
     * Reachability only. No URL: the device server's address is not for whoever reads this (the
     * relay-started one lives on a random loopback port the runtime must not learn).
     */
    device_mcp: { skipped: true } | { ok: boolean; latency_ms: number; status_code?: number; error?: string; url?: never };
    messaging: MessagingHealth;
    /** Where incidents are kept: for a team relay, its database. */
    store?: StoreCheck;
    /** The model runs would use; fails when none is configured (never a silent hosted default). */
    model?: { ok: boolean; model?: string; error?: string };
    /** Whether a run can start now: each reason it cannot (no model, the runtime's files changed) named. */
    runs?: { ok: boolean; reasons: string[] };
    /** Devices no change reaches until an approver clears them (a rollback failed on them). */
    quarantine?: { ok: boolean; devices: QuarantineEntry[] };
  };
}

const elapsed = (start: bigint) => Math.round(Number(process.hrtime.bigint() - start) / 1e5) / 10;

async function checkRuntime(agent: AgentRuntime): Promise<DeepHealth['checks']['agent_runtime']> {
  const start = process.hrtime.bigint();
  try {
    const h = await agent.health();
    return { ok: h.healthy, url: agent.url, latency_ms: elapsed(start), version: h.version };
  } catch (error) {
    const message =
      error instanceof AgentRuntimeError && error.kind === 'auth'
        ? 'the agent runtime rejected the relay\'s credentials: check AGENT_SERVER_USERNAME and AGENT_SERVER_PASSWORD'
        : error instanceof Error
          ? error.message
          : String(error);
    return { ok: false, url: agent.url, latency_ms: elapsed(start), error: message };
  }
}

/**
 * Whether the device tool server answers, as /health/deep reports it. A function, not a URL: the
 * relay-started server's address must not travel through the configuration (where the settings
 * view would show it) just so this check can find it.
 */
export type DeviceProbe = () => Promise<{ ok: boolean; status_code?: number; error?: string }>;

/**
 * Any HTTP answer proves reachability; an MCP endpoint may well refuse a bare GET (the SSH device
 * server answers 401: no credential is sent here, so none can leak through this check). The error
 * names no address, only the socket error's code.
 */
export function httpDeviceProbe(url: string, timeoutMs = 3000): DeviceProbe {
  return async () => {
    try {
      const res = await request(url, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      await res.body.dump();
      return { ok: true, status_code: res.statusCode };
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { ok: false, error: `not reachable from the relay${code ? ` (${code})` : ''}` };
    }
  };
}

async function checkDeviceMcp(probe: DeviceProbe | undefined): Promise<DeepHealth['checks']['device_mcp']> {
  if (!probe) return { skipped: true };
  const start = process.hrtime.bigint();
  try {
    const r = await probe();
    return { ok: r.ok, latency_ms: elapsed(start), ...(r.status_code !== undefined ? { status_code: r.status_code } : {}), ...(r.error ? { error: r.error } : {}) };
  } catch {
    // A probe that throws says nothing a reader should see (its message may name the address).
    return { ok: false, latency_ms: elapsed(start), error: 'the device tool server check failed' };
  }
}

async function checkModel(ask: () => Promise<ModelStatus>): Promise<NonNullable<DeepHealth['checks']['model']>> {
  try {
    const status = await ask();
    if (status.state === 'configured') return { ok: true, model: status.model };
    if (status.state === 'missing') return { ok: false, error: status.message };
    return { ok: false, error: status.error ?? 'the runtime did not say which model it uses' };
  } catch (error) {
    return { ok: false, error: `could not ask the runtime for its model: ${errorText(error)}` };
  }
}

export async function deepHealth(deps: {
  agent: AgentRuntime;
  /** Absent: no device tool server, the check is skipped. */
  deviceProbe?: DeviceProbe;
  messaging: () => MessagingHealth;
  eventStream?: () => EventStreamHealth;
  model?: () => Promise<ModelStatus>;
  warnings?: () => string[];
  store?: () => Promise<StoreCheck>;
  blockers?: () => Promise<string[]>;
  quarantined?: () => QuarantineEntry[];
}): Promise<DeepHealth> {
  const [agent_runtime, device_mcp, store, blocked] = await Promise.all([
    checkRuntime(deps.agent),
    checkDeviceMcp(deps.deviceProbe),
    deps.store?.(),
    deps.blockers?.(),
  ]);
  const runs = blocked ? { ok: blocked.length === 0, reasons: blocked } : undefined;
  const held = deps.quarantined?.();
  const quarantine = held ? { ok: held.length === 0, devices: held } : undefined;
  const messaging = deps.messaging();
  const model = deps.model && agent_runtime.ok ? await checkModel(deps.model) : undefined;
  // Reported, not judged: the stream reconnects on its own and a start-up blip is not an outage.
  if (deps.eventStream) agent_runtime.event_stream = deps.eventStream();
  const failed =
    !agent_runtime.ok ||
    ('ok' in device_mcp && !device_mcp.ok) ||
    (messaging.configured && !messaging.connected && !messaging.standby) ||
    (model !== undefined && !model.ok) ||
    (store !== undefined && !store.ok) ||
    (runs !== undefined && !runs.ok) ||
    (quarantine !== undefined && !quarantine.ok);
  return {
    status: failed ? 'degraded' : 'ok',
    // Asked after the checks: the model check may just have learned that no model is configured.
    ...(deps.warnings ? { warnings: deps.warnings() } : {}),
    checks: { agent_runtime, device_mcp, messaging, ...(store ? { store } : {}), ...(model ? { model } : {}), ...(runs ? { runs } : {}), ...(quarantine ? { quarantine } : {}) },
  };
}
