import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { startEmbeddedRuntime, type EmbeddedRuntime, type EmbeddedState } from '../../src/adapters/agent/embedded';
import { createRuntimeTmpdir } from '../../src/adapters/agent/runtime-tmpdir';
import { AgentRuntimeError } from '../../src/core/agent-runtime';
import { isolatedOpencodeEnv, isProcessAlive, repoRoot, waitUntil, observerClient } from '../helpers/opencode';

// One embedded runtime (real opencode) for the file; the tests run in order on it.
let runtime: EmbeddedRuntime;
let client: AgentClient;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString());
      cb();
    },
  });
  runtime = await startEmbeddedRuntime({
    cwd: repoRoot,
    logger: pino({ level: 'debug' }, sink),
    env: isolatedOpencodeEnv(repoRoot),
    restartDelay: () => 200,
  });
  client = observerClient(runtime.endpoint);
});
afterAll(async () => {
  await client?.close();
  await runtime?.stop({ graceMs: 0 });
});

const nextState = (want: EmbeddedState) =>
  new Promise<void>((resolve) => {
    const off = runtime.onState((s) => {
      if (s === want) {
        off();
        resolve();
      }
    });
  });

describe('embedded opencode runtime', () => {
  it('serves on loopback behind a generated password that never reaches the logs', async () => {
    const { url, username, password } = runtime.endpoint;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(username).toBe('opencode');
    expect(password.length).toBeGreaterThanOrEqual(32);
    await expect(client.health()).resolves.toMatchObject({ healthy: true });

    const anonymous = await request(`${url}/global/health`);
    await anonymous.body.dump();
    expect(anonymous.statusCode).toBe(401);

    const logs = logLines.join('');
    expect(logs).toContain('opencode server listening on');
    expect(logs).not.toContain(password);
  });

  it('knows the network-troubleshooter agent from the project folder', async () => {
    const res = await request(`${runtime.endpoint.url}/agent`, {
      headers: { authorization: `Basic ${Buffer.from(`opencode:${runtime.endpoint.password}`).toString('base64')}` },
    });
    const agents = (await res.body.json()) as { name: string; mode: string; native?: boolean }[];
    expect(agents.find((a) => a.name === 'network-troubleshooter')).toMatchObject({ mode: 'primary', native: false });
  });

  it('restarts opencode after it is killed, on the same URL, healthy again', async () => {
    const first = runtime.pid()!;
    const restarting = nextState('restarting');
    const ready = restarting.then(() => nextState('ready'));
    process.kill(first, 'SIGKILL');
    await restarting;
    await ready;
    expect(runtime.pid()).not.toBe(first);
    expect(isProcessAlive(first)).toBe(false);
    await expect(client.health()).resolves.toMatchObject({ healthy: true });
  });

  it('stop() ends opencode: no process left, nothing listening, its temp folder gone', async () => {
    const pid = runtime.pid()!;
    // opencode unpacks a 5.5 MB library into its TMPDIR on every start; it gets a folder of its own.
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const tmp = environ.find((v) => v.startsWith('TMPDIR='))!.slice('TMPDIR='.length);
    expect(path.basename(tmp)).toMatch(/^fault-relay-runtime-/);
    expect(existsSync(tmp)).toBe(true);
    await runtime.stop();
    expect(existsSync(tmp)).toBe(false);
    expect(runtime.state()).toBe('stopped');
    expect(isProcessAlive(pid)).toBe(false);
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentRuntimeError);
    expect((error as AgentRuntimeError).kind).toBe('unreachable');
  });

  it('leaves no orphan when the relay process itself is SIGKILLed', async () => {
    const embeddedModule = pathToFileURL(path.join(repoRoot, 'src/adapters/agent/embedded.ts')).href;
    const env = isolatedOpencodeEnv(repoRoot);
    const code = `
      const { startEmbeddedRuntime } = await import(${JSON.stringify(embeddedModule)});
      const { pino } = await import('pino');
      const rt = await startEmbeddedRuntime({ cwd: process.cwd(), logger: pino({ level: 'silent' }), env: ${JSON.stringify(env)} });
      console.log(JSON.stringify({ pid: rt.pid() }));
      setInterval(() => {}, 60_000);
    `;
    const relay = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => relay.once('exit', r));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: relay.stdout }).once('line', resolve);
      relay.once('exit', (code) => reject(new Error(`relay stand-in exited early (${code})`)));
    });
    const { pid } = JSON.parse(line) as { pid: number };
    expect(isProcessAlive(pid)).toBe(true);

    const tmp = path.join(os.tmpdir(), readdirSync(os.tmpdir()).find((n) => n.startsWith(`fault-relay-runtime-${relay.pid}-`))!);
    relay.kill('SIGKILL');
    await exited;
    await waitUntil(() => !isProcessAlive(pid), `opencode ${pid} is gone after its relay was killed`);
    // A killed relay cannot remove its runtime's temp folder; the next start sweeps it.
    expect(existsSync(tmp)).toBe(true);
    createRuntimeTmpdir().remove();
    expect(existsSync(tmp)).toBe(false);
  });
});
