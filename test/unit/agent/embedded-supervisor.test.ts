import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock';
import { startEmbeddedRuntime, type EmbeddedRuntime, type EmbeddedState } from '../../../src/adapters/agent/embedded';
import { isProcessAlive, waitUntil } from '../../helpers/opencode';

// The supervisor's decisions (when to restart, how to stop, what to log) tested with a stand-in
// executable; test/integration/embedded-runtime.test.ts runs the same code with real opencode.
const fake = path.join(import.meta.dirname, 'fixtures/fake-opencode.mjs');
const RESTART_MS = 12_345;
const START_TIMEOUT_MS = 54_321;

/** Timers the test fires by hand; real time never decides anything here. */
function manualClock() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let seq = 0;
  const clock: Clock = {
    now: () => new Date(0),
    setTimeout: (fn, ms) => {
      const id = ++seq;
      pending.set(id, { fn, ms });
      return { cancel: () => void pending.delete(id) };
    },
  };
  const fire = (ms: number) => {
    const due = [...pending].filter(([, t]) => t.ms === ms);
    expect(due.length, `a pending ${ms} ms timer`).toBeGreaterThan(0);
    for (const [id, t] of due) {
      pending.delete(id);
      t.fn();
    }
  };
  return { clock, pending, fire, has: (ms: number) => [...pending.values()].some((t) => t.ms === ms) };
}

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), text: () => lines.join('') };
}

const nextState = (rt: EmbeddedRuntime, want: EmbeddedState) =>
  new Promise<void>((resolve) => {
    const off = rt.onState((s) => {
      if (s === want) {
        off();
        resolve();
      }
    });
  });

let runtime: EmbeddedRuntime | undefined;
afterEach(async () => {
  await runtime?.stop({ graceMs: 0 });
  runtime = undefined;
});

const start = (mode: string, extra: Partial<Parameters<typeof startEmbeddedRuntime>[0]> = {}) =>
  startEmbeddedRuntime({
    cwd: import.meta.dirname,
    logger: pino({ level: 'silent' }),
    binary: fake,
    env: { FAKE_OPENCODE_MODE: mode },
    restartDelay: () => RESTART_MS,
    startTimeoutMs: START_TIMEOUT_MS,
    ...extra,
  });

describe('embedded runtime supervisor', () => {
  it('restarts a runtime that died, after the backoff delay, on the same URL and password', async () => {
    const { clock, fire, has } = manualClock();
    runtime = await start('ok', { clock });
    const { url, password } = runtime.endpoint;
    const first = runtime.pid()!;
    expect(runtime.state()).toBe('ready');

    const restarting = nextState(runtime, 'restarting');
    process.kill(first, 'SIGKILL');
    await restarting;
    expect(has(RESTART_MS)).toBe(true);

    const ready = nextState(runtime, 'ready');
    fire(RESTART_MS);
    await ready;
    expect(runtime.pid()).not.toBe(first);
    expect(runtime.endpoint).toMatchObject({ url, password });
  });

  it('stops without leaving a process behind, even one that ignores SIGTERM', async () => {
    runtime = await start('ignore-term', { stopGraceMs: 100 });
    const pid = runtime.pid()!;
    const stopped = nextState(runtime, 'stopped');
    await runtime.stop();
    await stopped;
    expect(isProcessAlive(pid)).toBe(false);
    await runtime.stop(); // idempotent
    expect(runtime.state()).toBe('stopped');
  });

  it('gives up with a clear error when the runtime never reports ready', async () => {
    const { clock, fire, has } = manualClock();
    const starting = start('silent', { clock, port: 1 });
    await waitUntil(() => has(START_TIMEOUT_MS), 'the start timer is set');
    fire(START_TIMEOUT_MS);
    await expect(starting).rejects.toThrow(/did not report ready within 54321 ms/);
  });

  it('reports a runtime that exits at start with its output, minus the password', async () => {
    const password = 'pw-must-not-leak-71';
    const { logger, text } = capturingLogger();
    const error = await start('crash', { password, logger, port: 1 }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/exited before it was ready.*Unexpected error/);
    expect((error as Error).message).not.toContain(password);
    expect(text()).toContain('starting with password [redacted]');
    expect(text()).not.toContain(password);
  });

  it('passes the generated password to the runtime and logs its output at debug level without it', async () => {
    const { logger, text } = capturingLogger();
    runtime = await start('ok', { logger });
    const { password, username } = runtime.endpoint;
    expect(username).toBe('opencode');
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(text()).toContain('"level":20');
    expect(text()).toContain('starting with password [redacted]');
    expect(text()).not.toContain(password);
  });
});
