import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../src/adapters/agent/embedded';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { scriptedProviderConfig, startScriptedModel, type ScriptedModel } from '../fakes/scripted-model';
import { connectMcp } from '../helpers/mcp-client';
import { isolatedOpencodeEnv } from '../helpers/opencode';
import { repoRoot, spawnRelay, type RelayProcess } from '../helpers/relay-process';
import { silent } from '../helpers/relay';

/** A hang guard, not a speed bar: opencode's first start on a loaded 2-core machine can pass 30 s. */
const START_GUARD_MS = 180_000;
const TOOLS_TOKEN = 'first-hour-tools-token';
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'relay-first-hour-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `npm run relay` on a laptop, as a person at a terminal sees it: human console lines, the JSON log in its file. */
async function laptopRelay(runtime: EmbeddedRuntime) {
  const logDir = tmp();
  const relay = await spawnRelay({
    AGENT_URL: runtime.endpoint.url,
    AGENT_SERVER_USERNAME: runtime.endpoint.username,
    AGENT_SERVER_PASSWORD: runtime.endpoint.password,
    RELAY_DATA_DIR: tmp(),
    RELAY_LOG_DIR: logDir,
    RELAY_TOOLS_TOKEN: TOOLS_TOKEN,
    RELAY_CONSOLE: 'human',
  });
  // Printed right after the listening line: wait for it, not for a time.
  const link = await vi.waitFor(
    () => {
      const found = relay.output.map((l) => /^\s+(http:\/\/\S+\/ui\?token=\S+)$/.exec(l)?.[1]).find(Boolean);
      if (!found) throw new Error('no sign-in link printed yet');
      return found;
    },
    { timeout: 10_000, interval: 50 },
  );
  return { relay, link, logFile: join(logDir, 'relay.log') };
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await request(url, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
};
const cookieOf = (setCookie: string | string[] | undefined) => String(Array.isArray(setCookie) ? setCookie[0] : (setCookie ?? '')).split(';')[0]!;

describe('the first hour on a laptop relay, without a model', () => {
  let runtime: EmbeddedRuntime;
  let relay: RelayProcess;
  beforeAll(async () => {
    runtime = await startEmbeddedRuntime({ cwd: repoRoot, logger: silent, env: isolatedOpencodeEnv(repoRoot), startTimeoutMs: START_GUARD_MS });
    ({ relay } = await laptopRelay(runtime));
  });
  afterAll(async () => {
    await relay?.stop();
    await runtime?.stop();
  });

  it('/health answers degraded and names the reason no run can start, and /health/deep has a failing row for it', async () => {
    const health = await get(`${relay.url}/health`);
    expect(health.json()).toMatchObject({ status: 'degraded', reasons: [expect.stringContaining('no model configured')] });
    const deep = await get(`${relay.url}/health/deep`);
    expect(deep.status).toBe(503);
    expect(deep.json()).toMatchObject({ status: 'degraded', checks: { model: { ok: false }, runs: { ok: false, reasons: [expect.stringContaining('no model configured')] } } });
  });
});

describe('the first hour on a laptop relay: sign in from the terminal and decide at /ui', () => {
  let model: ScriptedModel;
  let runtime: EmbeddedRuntime;
  let relay: RelayProcess;
  let link: string;
  let logFile: string;
  beforeAll(async () => {
    model = await startScriptedModel();
    const env = { ...isolatedOpencodeEnv(repoRoot), OPENCODE_CONFIG_CONTENT: JSON.stringify(scriptedProviderConfig(model.baseURL)) };
    runtime = await startEmbeddedRuntime({ cwd: repoRoot, logger: silent, env, startTimeoutMs: START_GUARD_MS });
    ({ relay, link, logFile } = await laptopRelay(runtime));
  });
  afterAll(async () => {
    await relay?.stop();
    await runtime?.stop();
    await model?.stop();
  });

  it('prints the /ui address and a one-time link; the link signs the local operator in once, and they decide an approval', async () => {
    const console = relay.output.join('\n');
    expect(console).toContain(`Its dashboard: ${relay.url}/ui/`);
    // Human lines on the terminal, not JSON.
    expect(relay.output.some((l) => /^\d\d:\d\d:\d\d {2}relay listening {2}url=/.test(l))).toBe(true);
    expect(relay.output.filter((l) => l.startsWith('{'))).toEqual([]);

    // A headed incident asks for a change through the agents' own tool: an approval waits.
    const made = await request(`${relay.url}/headed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
    expect(made.statusCode).toBe(201);
    const incidentId = ((await made.body.json()) as { incident_id: string }).incident_id;
    const tools = await connectMcp(`${relay.url}/mcp`, TOOLS_TOKEN);
    const asked = await tools.call('request_approval', { incident_id: incidentId, summary: 'remove the shutdown', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    await tools.close();
    expect(asked.json).toMatchObject({ status: 'pending' });
    const requestId = asked.json!.request_id as string;

    // Opened in the browser: a cookie, and on to /ui/.
    const opened = await get(link);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/ui/');
    const cookie = cookieOf(opened.headers['set-cookie']);
    expect(cookie).toMatch(/^fault_relay_ui=v2\./);
    const me = await get(`${relay.url}/ui/api/me`, { cookie });
    expect(me.json()).toMatchObject({ signed_in: true, can_decide: true, role: 'approver', name: userInfo().username });

    const decided = await request(`${relay.url}/incidents/${incidentId}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ request_id: requestId, decision: 'APPROVED', comment: 'from /ui' }),
    });
    expect(decided.statusCode).toBe(200);
    expect(await decided.body.json()).toMatchObject({ status: 'accepted', decision: 'APPROVED', by: userInfo().username, channel: 'ui' });
    const incident = (await get(`${relay.url}/sessions/${incidentId}`)).json();
    expect(incident.approval).toMatchObject({ decision: 'APPROVED', by: userInfo().username, channel: 'ui', reason: 'from /ui' });

    // The link works once: opened again, it signs nobody in.
    const again = await get(link);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.json()).toMatchObject({ error: { code: 'unauthorized', message: expect.stringContaining('works once') } });
  });

  it('keeps the link out of the JSON log file, which has what happened', async () => {
    const token = new URL(link).searchParams.get('token')!;
    expect(existsSync(logFile)).toBe(true);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('"msg":"relay listening"');
    expect(log).toContain('"msg":"approval decided"');
    expect(log).not.toContain(token);
    // On the terminal it is printed exactly once, on its own line.
    expect(relay.output.filter((l) => l.includes(token))).toEqual([`  ${link}`]);
  });
});
