import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AttachedDeviceServer } from '../../../src/adapters/devices/detached-server';
import { FAILING_AFTER, keepDeviceServer, RESTART_BACKOFF_MS, STABLE_MS } from '../../../src/relay/device-server-keeper';

/** A server the test can make go away; its pid is one no process has (so it reads as gone). */
function fakeServer(n: number) {
  let lose!: () => void;
  const lost = new Promise<void>((r) => (lose = r));
  const detach = vi.fn();
  const server: AttachedDeviceServer = { url: `http://127.0.0.1:${4000 + n}`, mcpUrl: `http://127.0.0.1:${4000 + n}/mcp`, token: `token-${n}`, pid: 4_000_000 + n, adopted: false, lost, detach };
  return { server, lose, detach };
}

afterEach(() => void vi.useRealTimers());

describe('the relay keeps its detached device server (restart with bounded backoff)', () => {
  it('starts a server that went away again at once, says so on /health, and clients are told of the new address', async () => {
    vi.useFakeTimers();
    const first = fakeServer(1);
    const second = fakeServer(2);
    const open = vi.fn(async () => second.server);
    const kept = keepDeviceServer({ first: first.server, open, logger: pino({ level: 'silent' }), now: () => Date.now() });
    const replaced = vi.fn();
    kept.onReplaced(replaced);
    // Up for longer than STABLE_MS: the first start after it goes away is immediate.
    await vi.advanceTimersByTimeAsync(STABLE_MS + 1);
    first.lose();
    await vi.advanceTimersByTimeAsync(0);
    expect(open).toHaveBeenCalledTimes(1);
    expect(replaced).toHaveBeenCalledTimes(1);
    expect(kept.endpoint()).toEqual({ url: second.server.url, mcpUrl: second.server.mcpUrl, token: 'token-2' });
    expect(kept.warnings()).toEqual([expect.stringMatching(/^The device tool server went away at \S+ \(process 4000001 is gone .*\) and was started again at \S+ \(pid 4000001 → 4000002\)/)]);
    expect(kept.blockers()).toEqual([]);
    kept.stop();
    expect(second.detach).toHaveBeenCalled();
  });

  it('starts that fail are retried ever more slowly (capped), never in a loop; after a few /health names the failure until one succeeds', async () => {
    vi.useFakeTimers();
    const first = fakeServer(1);
    const later = fakeServer(9);
    let failing = true;
    const open = vi.fn(async () => {
      if (failing) throw new Error('the device tool server exited before it was ready');
      return later.server;
    });
    const kept = keepDeviceServer({ first: first.server, open, logger: pino({ level: 'silent' }), now: () => Date.now() });
    // Gone soon after its start: even the first start waits.
    first.lose();
    await vi.advanceTimersByTimeAsync(0);
    expect(open).toHaveBeenCalledTimes(0);
    expect(kept.warnings()).toEqual([expect.stringMatching(/^The device tool server went away at \S+ while this relay was attached \(process 4000001 is gone .*\): starting it again\. /)]);
    // An hour of failures: the waits grow to the cap, so the count stays small.
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    const cap = RESTART_BACKOFF_MS.at(-1)!;
    expect(open.mock.calls.length).toBeLessThanOrEqual(RESTART_BACKOFF_MS.length + (60 * 60_000) / cap);
    expect(open.mock.calls.length).toBeGreaterThan(FAILING_AFTER);
    expect(kept.warnings()).toEqual([]);
    expect(kept.blockers()).toEqual([expect.stringMatching(/^The device tool server cannot be started again: \d+ starts since \S+ failed \(last: the device tool server exited before it was ready\); next try in \d+ s\. It went away because process 4000001 is gone/)]);
    failing = false;
    await vi.advanceTimersByTimeAsync(cap);
    expect(kept.blockers()).toEqual([]);
    expect(kept.endpoint().token).toBe('token-9');
    kept.stop();
  });
});
