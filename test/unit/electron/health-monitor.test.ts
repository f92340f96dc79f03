import { describe, expect, it } from 'vitest';
import { createHealthMonitor, trayHealthOf } from '../../../electron/health-monitor';
import { createRelayHost } from '../../../electron/relay-host';
import { ConfigError } from '../../../src/config/load';
import type { Clock } from '../../../src/core/clock';
import type { DeepHealth } from '../../../src/relay/health-checks';
import type { RunningRelay } from '../../../src/relay/start-headless';
import { silent } from '../../helpers/relay';

const healthy: DeepHealth = {
  status: 'ok',
  checks: { agent_runtime: { ok: true, url: 'http://127.0.0.1:4096', latency_ms: 2 }, device_mcp: { skipped: true }, messaging: { configured: false, connected: false } },
};
const runtimeDown: DeepHealth = { ...healthy, status: 'degraded', checks: { ...healthy.checks, agent_runtime: { ok: false, url: 'x', latency_ms: 1, error: 'connect ECONNREFUSED 127.0.0.1:4096' } } };

/** Timers the test fires by hand. */
function manualClock() {
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const clock: Clock = {
    now: () => new Date(0),
    setTimeout(fn, ms) {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return { cancel: () => void (t.cancelled = true) };
    },
  };
  const live = () => timers.filter((t) => !t.cancelled);
  return { clock, live, fire: () => live().forEach((t) => ((t.cancelled = true), t.fn())) };
}

describe('health for the tray', () => {
  it('names the first failing check in words the user can act on', () => {
    expect(trayHealthOf(healthy)).toEqual({ ok: true });
    const noModel = { ...healthy, warnings: ['no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT.'], checks: { ...healthy.checks, model: { ok: false, error: 'no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT' } } };
    expect(trayHealthOf(noModel)).toEqual({ ok: false, problem: 'no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT', warnings: noModel.warnings });
    expect(trayHealthOf(runtimeDown)).toEqual({ ok: false, problem: 'agent runtime: connect ECONNREFUSED 127.0.0.1:4096' });
    expect(trayHealthOf({ ...healthy, checks: { ...healthy.checks, messaging: { configured: true, connected: false, error: 'bad token' } } })).toEqual({ ok: false, problem: 'Webex not connected: bad token' });
  });

  it('re-checks on its timer and reports each change; checkNow replaces the pending timer', async () => {
    const { clock, live, fire } = manualClock();
    const answers = [healthy, runtimeDown, healthy];
    const seen: boolean[] = [];
    let reported: (() => void) | undefined;
    const nextReport = () => new Promise<void>((resolve) => (reported = resolve));
    const monitor = createHealthMonitor({
      check: async () => answers.shift()!,
      clock,
      intervalMs: 60_000,
      onHealth: (h) => {
        seen.push(h.ok === true);
        reported?.();
      },
    });
    await monitor.checkNow();
    expect(live().map((t) => t.ms)).toEqual([60_000]);
    const timed = nextReport();
    fire();
    await timed;
    await monitor.checkNow();
    expect(seen).toEqual([true, false, true]);
    expect(live()).toHaveLength(1);
    monitor.stop();
    expect(live()).toHaveLength(0);
  });

  it('keeps the quarantines the last check named, for the notifications of a team relay', async () => {
    const entry = { device: 'R1', reason: 'change chg-1 of INC-1: ROLLBACK FAILED (post-check failed): check the device', since: '2026-11-28T10:00:00.000Z', incident_id: 'INC-1', change_id: 'chg-1' };
    const answers: DeepHealth[] = [{ ...healthy, status: 'degraded', checks: { ...healthy.checks, quarantine: { ok: false, devices: [entry] } } }, healthy];
    const monitor = createHealthMonitor({ check: async () => answers.shift()!, clock: manualClock().clock, intervalMs: 60_000, onHealth: () => {} });
    expect(monitor.quarantined('R1')).toBeUndefined();
    await monitor.checkNow();
    expect([monitor.quarantined('r1'), monitor.quarantined('R2')]).toEqual([entry, undefined]);
    await monitor.checkNow(); // cleared on the relay
    expect(monitor.quarantined('R1')).toBeUndefined();
    monitor.stop();
  });
});

describe('relay host', () => {
  it('keeps the tray up when the relay cannot start, with a one-line reason; a restart that works clears it', async () => {
    const changes: (RunningRelay | undefined)[] = [];
    let attempt = 0;
    const running = { stop: async () => {} } as RunningRelay;
    const host = createRelayHost({
      logger: silent,
      start: async () => {
        attempt++;
        if (attempt === 1) throw new ConfigError(['INGEST_PORT: Too big: expected number to be <=65535', 'REMEDIATION_MODE: Invalid option']);
        if (attempt === 2) throw Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE' });
        return running;
      },
      onChange: (r) => void changes.push(r),
    });
    await host.start();
    expect(host.failure()).toBe('invalid configuration: INGEST_PORT: Too big: expected number to be <=65535; REMEDIATION_MODE: Invalid option (fix it in Settings)');
    expect(() => host.require()).toThrow(/^the relay is not running: invalid configuration/);
    await host.restart();
    expect(host.failure()).toBe('the port is already in use: set INGEST_PORT to a free port in Settings');
    await host.restart();
    expect([host.current(), host.failure()]).toEqual([running, undefined]);
    expect(changes).toEqual([undefined, undefined, running]);
  });
});
