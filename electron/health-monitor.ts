import type { Clock } from '../src/core/clock';
import type { DeepHealth } from '../src/relay/health-checks';
import type { TrayHealth } from './tray-state';
import { quarantineKey, quarantineLine, type QuarantineEntry } from '../src/core/quarantine/entry';
import { errorText } from '../src/core/error-body';

/** The first failing check, in words that say what to look at. */
export function trayHealthOf(health: DeepHealth): TrayHealth {
  const warnings = health.warnings ?? [];
  return { ...firstProblem(health), ...(warnings.length ? { warnings } : {}) };
}

function firstProblem(health: DeepHealth): TrayHealth {
  const { agent_runtime, device_mcp, messaging, model } = health.checks;
  if (!agent_runtime.ok) {
    const error = agent_runtime.error ?? 'not healthy';
    return { ok: false, problem: /^agent runtime/i.test(error) ? error : `agent runtime: ${error}` };
  }
  if ('ok' in device_mcp && !device_mcp.ok) return { ok: false, problem: `device tool server: ${device_mcp.error ?? 'not reachable'}` };
  if (messaging.configured && !messaging.connected && !messaging.standby) return { ok: false, problem: messagingProblem(messaging) };
  if (model && !model.ok) return { ok: false, problem: model.error ?? 'no model configured' };
  // A quarantined device: the tray says which, until an approver clears it (Health page).
  const held = health.checks.quarantine?.devices ?? [];
  if (held.length) return { ok: false, problem: `${quarantineLine(held[0]!)}${held.length > 1 ? ` (and ${held.length - 1} more quarantined)` : ''}` };
  return { ok: true };
}

/** Names the channel that is down (per-channel reports), else the summary as relays without them gave it. */
function messagingProblem(messaging: DeepHealth['checks']['messaging']): string {
  const down = Object.entries(messaging.channels ?? {}).find(([, c]) => c.state === 'degraded' || c.state === 'connecting');
  if (!down) return `Webex not connected${messaging.error ? `: ${messaging.error}` : ''}`;
  const [name, c] = down;
  const label = name.charAt(0).toUpperCase() + name.slice(1);
  return `${label} ${c.state === 'degraded' ? 'degraded' : 'not connected'}${c.error ? `: ${c.error}` : ''}`;
}

/**
 * Re-checks health on a timer: an external runtime or a device server going away raises no
 * event the relay could publish. The embedded runtime's state changes call `checkNow` at once.
 */
export function createHealthMonitor(deps: { check(): Promise<DeepHealth>; clock: Clock; intervalMs: number; onHealth(health: TrayHealth): void }) {
  let timer: { cancel(): void } | undefined;
  let stopped = false;
  let quarantined: QuarantineEntry[] = [];

  async function checkNow(): Promise<TrayHealth> {
    timer?.cancel();
    let health: TrayHealth;
    try {
      const deep = await deps.check();
      quarantined = deep.checks.quarantine?.devices ?? [];
      health = trayHealthOf(deep);
    } catch (error) {
      health = { ok: false, problem: errorText(error) };
    }
    if (!stopped) {
      deps.onHealth(health);
      timer = deps.clock.setTimeout(() => void checkNow(), deps.intervalMs);
    }
    return health;
  }

  return {
    checkNow,
    /** The device's quarantine as the last check named it (a team relay's notifications say so from this). */
    quarantined: (device: string) => quarantined.find((q) => quarantineKey(q.device) === quarantineKey(device)),
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}
