import { request } from 'undici';
import { AgentRuntimeError, type AgentRuntime } from '../agent/types';
import type { ModelStatus } from '../agent/model-check';
import type { StoreCheck } from '../incidents/store';

export interface MessagingHealth {
  configured: boolean;
  connected: boolean;
  /** Team relays: another relay holds the bot's one websocket; this one takes over if it dies. */
  standby?: boolean;
  device_registered?: boolean;
  last_event_at?: string;
  error?: string;
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
    return { ok: false, error: `could not ask the runtime for its model: ${(error as Error).message}` };
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
}): Promise<DeepHealth> {
  const [agent_runtime, device_mcp, store] = await Promise.all([
    checkRuntime(deps.agent),
    checkDeviceMcp(deps.deviceProbe),
    deps.store?.(),
  ]);
  const messaging = deps.messaging();
  const model = deps.model && agent_runtime.ok ? await checkModel(deps.model) : undefined;
  // Reported, not judged: the stream reconnects on its own and a start-up blip is not an outage.
  if (deps.eventStream) agent_runtime.event_stream = deps.eventStream();
  const failed =
    !agent_runtime.ok ||
    ('ok' in device_mcp && !device_mcp.ok) ||
    (messaging.configured && !messaging.connected && !messaging.standby) ||
    (model !== undefined && !model.ok) ||
    (store !== undefined && !store.ok);
  return {
    status: failed ? 'degraded' : 'ok',
    // Asked after the checks: the model check may just have learned that no model is configured.
    ...(deps.warnings ? { warnings: deps.warnings() } : {}),
    checks: { agent_runtime, device_mcp, messaging, ...(store ? { store } : {}), ...(model ? { model } : {}) },
  };
}
