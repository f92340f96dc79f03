import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../src/adapters/agent/embedded';
import { scriptedProviderConfig, startScriptedModel, type ScriptedModel } from '../fakes/scripted-model';
import { isolatedOpencodeEnv, observerClient } from '../helpers/opencode';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { parsePromptText } from '../../src/core/incidents/agent-prompt';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { repoRoot, spawnRelay, type RelayProcess } from '../helpers/relay-process';
import { silent } from '../helpers/relay';

const run = promisify(execFile);

/** A runtime must have a model (the relay refuses to start runs on one without): a scripted one that just answers. */
let model: ScriptedModel | undefined;
async function modelEnv() {
  model ??= await startScriptedModel();
  return { ...isolatedOpencodeEnv(repoRoot), OPENCODE_CONFIG_CONTENT: JSON.stringify(scriptedProviderConfig(model.baseURL)) };
}
afterAll(async () => model?.stop());
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'relay-int-'));
  dirs.push(d);
  return d;
};

async function post(base: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(`${base}/fault-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}
const getJson = async (url: string) => (await (await request(url)).body.json()) as Record<string, unknown>;

/** The first user message of a session, once opencode has stored it (prompt_async answers first). */
function firstUserMessage(client: AgentClient, sessionId: string) {
  return vi.waitFor(
    async () => {
      const messages = await client.getMessages(sessionId);
      const user = messages.find((m) => m.info.role === 'user');
      const text = user?.parts.find((p) => p.type === 'text')?.text;
      if (!user || text === undefined) throw new Error(`no user message in ${sessionId} yet`);
      return { agent: user.info.agent, text };
    },
    { timeout: 15_000, interval: 50 },
  );
}

/** A hang guard, not a speed bar: opencode's first start on a loaded 2-core machine can pass 30 s. */
const START_GUARD_MS = 180_000;

describe('relay against the real opencode server', () => {
  let runtime: EmbeddedRuntime;
  let client: AgentClient;
  let relay: RelayProcess;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime({ cwd: repoRoot, logger: silent, env: await modelEnv(), startTimeoutMs: START_GUARD_MS });
    client = observerClient(runtime.endpoint);
    relay = await spawnRelay({
      AGENT_URL: runtime.endpoint.url,
      AGENT_SERVER_USERNAME: runtime.endpoint.username,
      AGENT_SERVER_PASSWORD: runtime.endpoint.password,
      RELAY_DATA_DIR: tmp(),
      // Five runs at once by the last test (R1, R7, R8, the headed R5 and the alert that joins it):
      // room for all, so no alert waits for an earlier run to end, which is not what these tests are about.
      MAX_ACTIVE_RUNS: '8',
    });
  });
  afterAll(async () => {
    await relay?.stop();
    await client?.close();
    await runtime?.stop();
  });

  it('creates a session whose first user message is the prompt JSON for network-troubleshooter', async () => {
    const res = await post(relay.url, buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' }));
    expect(res.status).toBe(202);
    // 'queued' when the runtime took longer than the intake waits (a loaded machine): delivered just after.
    expect(res.body).toMatchObject({ status: expect.stringMatching(/^(accepted|queued)$/), alert_def_id: 'AD000002' });
    const sessionId = await relay.delivered(res.body.incident_id as string);
    const session = await client.getSession(sessionId);
    expect(session.title).toBe(`${res.body.incident_id} AD000002 R1`);
    const first = await firstUserMessage(client, sessionId);
    expect(first.agent).toBe('network-troubleshooter');
    expect(parsePromptText(first.text)).toMatchObject({
      incident_id: res.body.incident_id,
      alert_def_id: 'AD000002',
      device_hostname: 'R1',
      mode: 'strict',
      alert_vars: { neighbor_ip: '10.0.0.2', neighbor_as: '65002' },
    });
  });

  it('folds 20 identical alerts into one session and gives two devices two sessions', async () => {
    const storm = await Promise.all(Array.from({ length: 20 }, () => post(relay.url, buildSplunkAlert({ device: 'R7' }))));
    expect(new Set(storm.map((r) => r.body.incident_id)).size).toBe(1);
    const incidentId = storm[0]?.body.incident_id as string;
    const incident = await getJson(`${relay.url}/sessions/${incidentId}`);
    expect(incident.occurrences).toBe(20);
    const r8 = await post(relay.url, buildSplunkAlert({ device: 'R8' }));
    expect(['accepted', 'queued']).toContain(r8.body.status);
    await relay.delivered(r8.body.incident_id as string);
    await relay.delivered(incidentId);
    // opencode keeps sessions of earlier runs in this project: count by this run's incident ids. A
    // session made ready before the alert is named after it once the prompt is in: waited for.
    await vi.waitFor(async () => {
      const titles = (await client.listSessions()).map((s) => s.title ?? '');
      expect(titles.filter((t) => t === `${incidentId} AD000002 R7`)).toHaveLength(1);
      expect(titles.filter((t) => t === `${r8.body.incident_id} AD000002 R8`)).toHaveLength(1);
    }, { timeout: 10_000, interval: 50 });
  });

  it('simulator prints the session id, and --direct makes a headed incident whose prompt is the one the relay sends', async () => {
    const simulate = (...more: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/simulate-alert.ts', '--api', relay.url, ...more, '--device', 'R5', '--neighbor', '10.5.5.5'], { cwd: repoRoot });
    // The headed run first: once the relay's own incident for the fault is open, a headed run joins it instead.
    const direct = await simulate('--direct');
    const sim = await simulate();
    const match = /^(INC-\S+) (accepted session ses_\S+|queued session \(none yet\))/m.exec(sim.stdout);
    expect(match, sim.stdout).not.toBeNull();
    // Queued when the runtime answered after the intake stopped waiting (a loaded machine): the log says where it went.
    const sessionId = await relay.delivered((match as RegExpExecArray)[1] as string);
    const sent = await firstUserMessage(client, sessionId);
    const joined = await simulate('--direct');
    expect(joined.stderr).toContain(`already has the open incident ${(match as RegExpExecArray)[1]}`);
    expect(joined.stdout).toBe('');
    const headedId = /Headed incident (HEADED-\S+) on R5 created/.exec(direct.stderr)?.[1];
    expect(headedId, direct.stderr).toBeDefined();
    const listed = await getJson(`${relay.url}/sessions/${headedId}`);
    expect(listed).toMatchObject({ kind: 'headed', state: 'running', device_hostname: 'R5' });
    // Same alert: only the incident id, the event time and the search id differ between the two.
    const normalise = (t: string) =>
      t
        .replace(/"incident_id": "[^"]*"/, '"incident_id": "…"')
        .replace(/"(_time|sid|results_link)": "[^"]*"/g, '"$1": "…"')
        .replace(/\w{3} \d{2} \w{3} \d{4} \d\d:\d\d:\d\d|\d{2} \w{3} \d{4} \d\d:\d\d:\d\d/g, 'TIME')
        .trim();
    expect(normalise(direct.stdout)).toBe(normalise(sent.text));
  });
});

describe('nothing lost when the runtime or the relay goes down', () => {
  it('queues while the runtime is down and delivers when it comes back, with no new alert', async () => {
    const port = await findFreePort();
    const password = 'pw-' + Math.random().toString(36).slice(2);
    const relay = await spawnRelay({
      AGENT_URL: `http://127.0.0.1:${port}`,
      AGENT_SERVER_PASSWORD: password,
      RELAY_DATA_DIR: tmp(),
      DELIVERY_RETRY_MAX_MS: '300',
    });
    let runtime: EmbeddedRuntime | undefined;
    try {
      const res = await post(relay.url, buildSplunkAlert({ device: 'R2' }));
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'queued', session_id: null });
      const id = res.body.incident_id as string;

      runtime = await startEmbeddedRuntime({ cwd: repoRoot, logger: silent, port, password, env: await modelEnv(), startTimeoutMs: START_GUARD_MS });
      const delivered = await vi.waitFor(
        async () => {
          const inc = await getJson(`${relay.url}/sessions/${id}`);
          if (inc.state !== 'running') throw new Error(`still ${inc.state}`);
          return inc;
        },
        { timeout: 30_000, interval: 100 },
      );
      const client = observerClient(runtime.endpoint);
      const first = await firstUserMessage(client, delivered.session_id as string);
      expect(parsePromptText(first.text).incident_id).toBe(id);
      // Retries during the runtime's start-up must not leave a second session behind.
      await vi.waitFor(async () => {
        const sessions = (await client.listSessions()).filter((s) => s.title?.startsWith(`${id} `));
        expect(sessions.map((s) => s.id)).toEqual([delivered.session_id]);
      }, { timeout: 10_000, interval: 50 });
      await client.close();
    } finally {
      await relay.stop();
      await runtime?.stop();
    }
  });

  it('keeps an accepted alert through a SIGKILL of the relay and delivers it after the restart', async () => {
    const port = await findFreePort();
    const password = 'pw-' + Math.random().toString(36).slice(2);
    const dataDir = tmp();
    const env = { AGENT_URL: `http://127.0.0.1:${port}`, AGENT_SERVER_PASSWORD: password, RELAY_DATA_DIR: dataDir, DELIVERY_RETRY_MAX_MS: '300' };
    const first = await spawnRelay(env);
    const res = await post(first.url, buildSplunkAlert({ device: 'R3' }));
    expect(res.body.status).toBe('queued');
    const id = res.body.incident_id as string;
    await first.stop('SIGKILL');

    const runtime = await startEmbeddedRuntime({ cwd: repoRoot, logger: silent, port, password, env: await modelEnv(), startTimeoutMs: START_GUARD_MS });
    const second = await spawnRelay(env);
    try {
      const delivered = await vi.waitFor(
        async () => {
          const inc = await getJson(`${second.url}/sessions/${id}`);
          if (inc.state !== 'running') throw new Error(`still ${inc.state}`);
          return inc;
        },
        { timeout: 30_000, interval: 100 },
      );
      const client = observerClient(runtime.endpoint);
      await vi.waitFor(async () => {
        const sessions = (await client.listSessions()).filter((s) => s.title?.startsWith(`${id} `));
        expect(sessions.map((s) => s.id)).toEqual([delivered.session_id]);
      }, { timeout: 10_000, interval: 50 });
      await client.close();
    } finally {
      await second.stop();
      await runtime.stop();
    }
  });

  it('shows a wrong runtime password in /health/deep, and the password nowhere in answers or logs', async () => {
    const runtime = await startEmbeddedRuntime({ cwd: repoRoot, logger: silent, env: await modelEnv(), startTimeoutMs: START_GUARD_MS });
    const wrong = 'wrong-password-' + Math.random().toString(36).slice(2);
    const relay = await spawnRelay({ AGENT_URL: runtime.endpoint.url, AGENT_SERVER_PASSWORD: wrong, RELAY_DATA_DIR: tmp() });
    try {
      const res = await request(`${relay.url}/health/deep`);
      const text = await res.body.text();
      expect(res.statusCode).toBe(503);
      expect(JSON.parse(text).checks.agent_runtime).toMatchObject({ ok: false, error: expect.stringMatching(/credentials/) });
      const alert = await post(relay.url, buildSplunkAlert({ device: 'R4' }));
      expect(alert.body.status).toBe('queued');
      const incident = JSON.stringify(await getJson(`${relay.url}/sessions/${alert.body.incident_id}`));
      for (const output of [text, incident, JSON.stringify(alert.body)]) expect(output).not.toContain(wrong);
    } finally {
      await relay.stop();
      await runtime.stop();
    }
    expect(relay.output.join('\n')).not.toContain(wrong);
    expect(relay.output.join('\n')).toMatch(/delivery failed/);
  });
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
