import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { atExit } from './at-exit';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../src/adapters/agent/embedded';
import { demoRuntimeHome } from '../../src/adapters/agent/runtime-home';
import { withoutSnapshots } from '../../harness/demo/no-snapshots';
import type { RuntimeEndpoint } from '../../src/core/agent-runtime';
import { createAgentClient, type AgentClientOptions } from '../../src/adapters/agent/client';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface OpencodeOptions {
  /** Project folder; default the repository (its `.opencode/agent/*.md` and `opencode.json`). */
  cwd?: string;
  /** Extra opencode config (JSON text or object), passed as `OPENCODE_CONFIG_CONTENT`. */
  configContent?: string | object;
  env?: Record<string, string | undefined>;
  logger?: Logger;
}

export interface OpencodeHarness {
  /** Stays the same across stop()/start(): same port, same password. */
  endpoint: RuntimeEndpoint;
  cwd: string;
  /** The supervisor of the current run (undefined while stopped). */
  runtime(): EmbeddedRuntime | undefined;
  /** Graceful stop; idempotent. The data (sessions) is kept for a later start(). */
  stop(): Promise<void>;
  /** Hard kill (SIGKILL), as if the runtime crashed, with no restart. Idempotent. */
  kill(): Promise<void>;
  /** Starts it again on the same URL and password. */
  start(): Promise<void>;
}

/**
 * Environment that keeps an opencode server away from the user's own opencode config, data and
 * Claude Code files, and from the npm registry (the demo's own isolation, in a temp folder that
 * is removed when the test process exits), without opencode's per-step git snapshots (no-snapshots.ts).
 */

export function isolatedOpencodeEnv(cwd: string): Record<string, string> {
  const home = mkdtempSync(path.join(tmpdir(), 'opencode-home-'));
  atExit(() => rmSync(home, { recursive: true, force: true }));
  return withoutSnapshots(demoRuntimeHome(home, cwd));
}

/**
 * Starts the real opencode server (from node_modules, loopback, random port, random password)
 * through the relay's embedded-runtime code, isolated as `isolatedOpencodeEnv` says.
 */
export async function startOpencode(opts: OpencodeOptions = {}): Promise<OpencodeHarness> {
  const cwd = opts.cwd ?? repoRoot;
  const configContent =
    opts.configContent === undefined
      ? undefined
      : typeof opts.configContent === 'string'
        ? opts.configContent
        : JSON.stringify(opts.configContent);
  const env = {
    ...isolatedOpencodeEnv(cwd),
    ...(configContent ? { OPENCODE_CONFIG_CONTENT: configContent } : {}),
    ...opts.env,
  };
  const logger = opts.logger ?? pino({ level: 'silent' });

  let runtime: EmbeddedRuntime | undefined = await startEmbeddedRuntime({
    cwd,
    logger,
    env,
    restartDelay: () => 100,
    stopGraceMs: 3_000,
    // A hang guard, not a speed bar: opencode's first start on a loaded 2-core machine can pass 30 s.
    startTimeoutMs: 180_000,
  });
  const endpoint = { ...runtime.endpoint };
  const port = Number(new URL(endpoint.url).port);

  let ending: Promise<void> | undefined;
  const end = (graceMs?: number) => {
    const r = runtime;
    runtime = undefined;
    if (r) ending = r.stop(graceMs === undefined ? {} : { graceMs });
    return ending ?? Promise.resolve();
  };

  return {
    endpoint,
    cwd,
    runtime: () => runtime,
    stop: () => end(),
    kill: () => end(0),
    async start() {
      if (runtime) return;
      await ending;
      ending = undefined;
      runtime = await startEmbeddedRuntime({
        cwd,
        logger,
        env,
        port,
        password: endpoint.password,
        username: endpoint.username,
        restartDelay: () => 100,
        stopGraceMs: 3_000,
        startTimeoutMs: 180_000,
      });
    },
  };
}

/** True while `pid` runs (a zombie awaiting its reaper counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/**
 * Resolves once `condition` holds. For facts nothing announces (a process has gone); checks
 * every `everyMs` and fails after `timeoutMs` with `what` in the message.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, { timeoutMs = 20_000, everyMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * The tests' own client for looking at what the runtime holds: the product's timeouts are for a
 * relay that must fail fast; a test's look may wait on a runtime slowed by a loaded machine.
 */
export const observerClient = (endpoint: RuntimeEndpoint, opts: AgentClientOptions = {}) =>
  createAgentClient(endpoint, { ...opts, timeouts: { connectMs: 15_000, headersMs: 90_000, bodyMs: 120_000, eventHeadersMs: 30_000, ...opts.timeouts } });
