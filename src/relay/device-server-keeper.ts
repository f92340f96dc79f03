import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { AttachedDeviceServer } from '../adapters/devices/detached-server';
import { errorText } from '../core/error-body';

/**
 * Waits between starts of a device server that went away: the first at once (a pending change's
 * deadline is running), then longer, up to a minute, so a server that dies at every start is never
 * started in a loop. A server that stayed up for STABLE_MS starts the count again.
 */
export const RESTART_BACKOFF_MS = [0, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000] as const;
export const STABLE_MS = 60_000;
/** After this many failed starts in a row /health says it keeps failing (degraded, a named reason). */
export const FAILING_AFTER = 3;
/** How long /health keeps saying that the server was started again. */
const RESTART_NOTE_MS = 60 * 60_000;

export interface DeviceServerEndpoint {
  url: string;
  mcpUrl: string;
  /** For the relay's own device client only. */
  token: string;
}

export interface KeptDeviceServer {
  endpoint(): DeviceServerEndpoint;
  /** Called with each server started in place of one that went away (clients reconnect to it). */
  onReplaced(fn: () => void): void;
  /** While it is down, and for an hour after it was started again: what happened, for /health. */
  warnings(): string[];
  /** Once starts keep failing: why device tools cannot work (/health is degraded while any). */
  blockers(): string[];
  /** The relay's clean stop: no more starts; the server keeps any pending change's deadline. */
  stop(): void;
}

/** Whether a process that is not this one's child is still there (a zombie does not count). */
function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}

interface Down {
  since: Date;
  pid: number;
  why: string;
  attempts: number;
  lastError?: string;
  nextAt?: number;
}

/**
 * The relay's detached device server, kept running while the relay is attached: when its `GET /attach`
 * ends without the relay letting go (the server was killed, crashed or stopped), a new one is started
 * on the same journal with `resume`, so a change still pending keeps its deadline (and can still be
 * confirmed by the post-check or a person), and one past its deadline is rolled back at once.
 */
export function keepDeviceServer(deps: { first: AttachedDeviceServer; open: () => Promise<AttachedDeviceServer>; logger: Logger; now?: () => number }): KeptDeviceServer {
  const now = deps.now ?? Date.now;
  let current = deps.first;
  let startedAt = now();
  let failures = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let down: Down | undefined;
  let restarted: { wentAt: Date; at: Date; why: string; from: number; to: number } | undefined;
  const replaced = new Set<() => void>();

  const schedule = () => {
    const wait = RESTART_BACKOFF_MS[Math.min(failures, RESTART_BACKOFF_MS.length - 1)]!;
    down!.nextAt = now() + wait;
    timer = setTimeout(() => void attempt(), wait);
  };

  const attempt = async () => {
    if (stopped || !down) return;
    const d = down;
    d.attempts += 1;
    let next: AttachedDeviceServer;
    try {
      next = await deps.open();
    } catch (error) {
      d.lastError = errorText(error);
      failures += 1;
      deps.logger.error({ attempt: d.attempts, err: d.lastError }, 'the device tool server could not be started again');
      if (!stopped) schedule();
      return;
    }
    if (stopped) return next.detach();
    restarted = { wentAt: d.since, at: new Date(now()), why: d.why, from: d.pid, to: next.pid };
    deps.logger.warn({ pid: next.pid, previous_pid: d.pid, adopted: next.adopted, attempts: d.attempts }, 'device tool server started again: changes pending in its journal keep their deadlines');
    down = undefined;
    current = next;
    startedAt = now();
    watch(next);
    for (const fn of replaced) fn();
  };

  const watch = (server: AttachedDeviceServer) => {
    void server.lost.then(() => {
      if (stopped || server !== current) return;
      // A server that dies soon after its start counts towards the wait before the next.
      failures = now() - startedAt < STABLE_MS ? failures + 1 : 0;
      const why = alive(server.pid) ? `its connection closed while process ${server.pid} still runs` : `process ${server.pid} is gone (it exited or was killed; see device-server.log)`;
      down = { since: new Date(now()), pid: server.pid, why, attempts: 0 };
      deps.logger.error({ pid: server.pid, why }, 'the device tool server went away while the relay was attached: starting it again');
      schedule();
    });
  };
  watch(current);

  return {
    endpoint: () => ({ url: current.url, mcpUrl: current.mcpUrl, token: current.token }),
    onReplaced: (fn) => void replaced.add(fn),
    warnings() {
      if (down && down.attempts < FAILING_AFTER) {
        return [`The device tool server went away at ${down.since.toISOString()} while this relay was attached (${down.why}): starting it again${down.attempts ? ` (${down.attempts} failed so far: ${down.lastError})` : ''}. Device tools fail until it is back; changes pending in its journal keep their deadlines and are rolled back by them.`];
      }
      if (!down && restarted && now() - restarted.at.getTime() < RESTART_NOTE_MS) {
        return [`The device tool server went away at ${restarted.wentAt.toISOString()} (${restarted.why}) and was started again at ${restarted.at.toISOString()} (pid ${restarted.from} → ${restarted.to}): changes pending in its journal kept their deadlines.`];
      }
      return [];
    },
    blockers() {
      if (!down || down.attempts < FAILING_AFTER) return [];
      const next = Math.max(0, Math.round(((down.nextAt ?? now()) - now()) / 1000));
      return [`The device tool server cannot be started again: ${down.attempts} starts since ${down.since.toISOString()} failed (last: ${down.lastError}); next try in ${next} s. It went away because ${down.why}. Device tools fail, and a change pending on a device is rolled back only once it starts; see device-server.log in RELAY_LOG_DIR.`];
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      current.detach();
    },
  };
}
