import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { SupervisedServerInfo, supervisedFiles } from '../../src/adapters/devices/supervised';
import { newToken } from '../../src/core/operators/operators';
import { connectMcp } from '../helpers/mcp-client';
import { shippedRuntimeAnswers } from '../helpers/shipped-runtime';
import { spawnRelay, type RelayProcess } from '../helpers/relay-process';
import { tempDir } from '../helpers/temp-dir';
import { shutdownR2 } from './confirmed-apply-helpers';
import { frrLabForTest } from './lab-for-test';
import type { FrrLab } from '../../harness/frr-lab/lab';

/**
 * A relay (`npm run relay` with DEVICE_INVENTORY) killed -9 while a provisional change on real FRR
 * waits for its confirm: what it leaves, for the tests of what puts the router back.
 */
const TOOLS_TOKEN = 'relay-killed-tools-token';
const auth = { authorization: 'Bearer splunk-secret' };

type Change = { change_id: string; device: string; state: string; ended_by: string | null; deadline: string; detail: string | null; unanswered?: true };
export type Incident = { state: string; change: Change | null; plan_changes?: Change[]; timeline: { at: string; type: string; message: string }[] };

/**
 * Just enough of opencode's HTTP API for the relay to deliver an alert and see the run going: the
 * test plays the agent itself, through the relay's own tool endpoints. Every session stays busy, so
 * the relay's reconciler never ends the run behind the test's back.
 */
export async function stubRuntime(): Promise<string> {
  const sessions: { id: string; title?: string }[] = [];
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://runtime').pathname;
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/event') {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && path === '/session') {
        const session = { id: `ses_${sessions.length + 1}`, title: (JSON.parse(body) as { title?: string }).title };
        sessions.push(session);
        return json(session);
      }
      if (path === '/session') return json(sessions);
      if (path === '/session/status') return json(Object.fromEntries(sessions.map((s) => [s.id, { type: 'busy' }])));
      // As a runtime on the shipped agent files answers: the relay refuses runs on one that reports anything else.
      if (path === '/agent') return json(shippedRuntimeAnswers().agents);
      if (path === '/config') return json(shippedRuntimeAnswers().config);
      if (path === '/global/health') return json({ healthy: true });
      if (path.endsWith('/prompt_async')) return res.writeHead(204).end();
      if (path.endsWith('/message')) return json([]);
      const session = sessions.find((s) => path === `/session/${s.id}`);
      return session ? json(session) : res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of streams) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function api<T>(url: string, opts: { method?: 'GET' | 'POST'; token?: string; body?: unknown } = {}): Promise<{ status: number; json: T }> {
  const res = await request(url, {
    method: opts.method ?? 'GET',
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : auth), ...(opts.body ? { 'content-type': 'application/json' } : {}) },
    ...(opts.body ? { body: JSON.stringify(opts.body) } : {}),
  });
  return { status: res.statusCode, json: (await res.body.json()) as T };
}

/** Asks the relay's API until the incident is as wanted; nothing is pushed to a test, so it polls, bounded. */
export async function untilIncident(relay: RelayProcess, id: string, ok: (i: Incident) => boolean, what: string, timeoutMs = 90_000): Promise<Incident> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await api<Incident>(`${relay.url}/sessions/${id}`);
    if (ok(json)) return json;
    if (Date.now() > deadline) throw new Error(`${id} is not ${what} after ${timeoutMs / 1000} s: ${JSON.stringify({ state: json.state, change: json.change })}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * An incident on R1, delivered to the (stub) runtime, its change approved by a person over the API
 * and applied through the relay's device guard (the path the agent's config_cli takes), then the
 * relay killed -9. The change (R1's session to R2 shut down) cannot pass AD000002's post-check
 * (Established); its 6 attempts 10 s apart keep the first relay from settling it before the kill.
 */
export async function appliedThenKilled(opts: RelayOnLabOpts & { killGroup?: boolean }) {
  const { first, ...k } = await appliedPending(opts);
  await (opts.killGroup ? first.killGroup() : first.stop('SIGKILL'));
  // Killed before anything settled the change: on the router, and pending in the relay's journal.
  expect(await k.lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');
  expect(JSON.parse(readFileSync(k.entryFile, 'utf8'))).toMatchObject({ change_id: k.change.change_id, device: 'R1', lines: shutdownR2, deadline: k.change.deadline });
  expect(existsSync(k.outcomeFile)).toBe(false);
  return k;
}

type RelayOnLabOpts = { confirmWithinS: number; mode: 'detached' | 'in-process'; lab?: FrrLab };

/** `npm run relay` on the FRR lab (the one given, or one for this test) with one approver, started once (`first`). */
async function relayOnLab(opts: RelayOnLabOpts) {
  const lab = opts.lab ?? (await frrLabForTest());
  const agentUrl = await stubRuntime();
  const dataDir = tempDir('fault-relay-killed-data-');
  const journal = join(dataDir, 'device-changes');
  const ana = newToken();
  const operators = join(tempDir('fault-relay-killed-ops-'), 'operators.yaml');
  writeFileSync(operators, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 }] }));
  const env = {
    DEVICE_INVENTORY: lab.inventoryPath,
    RELAY_DATA_DIR: dataDir,
    RELAY_LOG_DIR: tempDir('fault-relay-killed-logs-'),
    RELAY_HOST: '127.0.0.1',
    RELAY_TOOLS_TOKEN: TOOLS_TOKEN,
    OPERATORS_FILE: operators,
    CONFIRM_WITHIN_S: String(opts.confirmWithinS),
    WEBHOOK_SECRET: 'splunk-secret',
    AGENT_URL: agentUrl,
    AGENT_SERVER_PASSWORD: 'runtime-pw',
    DEVICE_SERVER_MODE: opts.mode,
  };
  /** `npm run relay` on the same data folder and inventory each time. */
  const relay = async () => {
    const r = await spawnRelay(env, { ownGroup: true });
    onTestFinished(() => r.killGroup());
    return r;
  };
  const first = await relay();
  const deviceServer = opts.mode === 'detached' ? supervisedServer(journal) : undefined;
  /** An alert for R1 delivered, its run going: the test then plays the agent through the relay's own tools. */
  const incident = async (alertDefId = 'AD000002') => {
    const alert = await api<{ incident_id: string }>(`${first.url}/fault-alert`, { method: 'POST', body: buildSplunkAlert({ alertDefId, device: 'R1', neighbor: '10.0.0.2' }) });
    expect(alert.status).toBe(202);
    const id = alert.json.incident_id;
    await untilIncident(first, id, (i) => i.state === 'running', 'running');
    const tools = await connectMcp(`${first.url}/mcp`, TOOLS_TOKEN);
    const device = await connectMcp(`${first.url}/device-mcp`, TOOLS_TOKEN);
    const approve = async (request: Record<string, unknown>) => {
      const asked = await tools.call('request_approval', { incident_id: id, ...request });
      expect(asked.json?.status, asked.text).toBe('pending');
      const decided = await api(`${first.url}/incidents/${id}/decision`, { method: 'POST', token: ana.token, body: { request_id: asked.json?.request_id, decision: 'APPROVED' } });
      expect(decided.status).toBe(200);
    };
    const close = () => Promise.all([tools.close(), device.close()].map((p) => p.catch(() => undefined)));
    return { id, device, approve, close };
  };
  return { first, lab, relay, incident, ana, journal, deviceServer, logDir: env.RELAY_LOG_DIR, env };
}

/** The same incident and change, with the first relay still running (`first`). */
export async function appliedPending(opts: RelayOnLabOpts & { commands?: string[] }) {
  const commands = opts.commands ?? shutdownR2;
  const { incident, ...k } = await relayOnLab(opts);
  const before = await k.lab.vtysh('R1', 'show running-config');
  const { id, device, approve, close } = await incident();
  await approve({ summary: 'change R1 towards R2', device: 'R1', commands });
  const applied = await device.call('config_cli', { incident_id: id, device: 'R1', commands });
  expect(applied.isError, applied.text).toBe(false);
  expect(applied.text).toMatch(/provisional until/);
  const change = (await untilIncident(k.first, id, (i) => i.change?.state === 'pending', 'holding a pending change')).change!;
  await close();
  const entryFile = join(k.journal, `pending-${change.change_id}.json`);
  const outcomeFile = join(k.journal, `outcome-${change.change_id}.json`);
  return { ...k, id, change, before, entryFile, outcomeFile };
}

/** R2's half of the plan tests' plans: a description on its session to R1 (harmless, but a change to put back). */
export const describeR1 = ['router bgp 65002', 'neighbor 10.0.0.1 description plan-R1'];
/** A plan over both routers whose post-check cannot pass (R1's session to R2 is shut by it). */
export const PLAN = [{ device: 'R1', commands: shutdownR2 }, { device: 'R2', commands: describeR1 }];

/** Stops (or continues) a daemon of one lab router: a stopped bgpd leaves a change to that router hanging before it is sent. */
export function signalDaemon(lab: Pick<FrrLab, 'routers'>, router: string, daemon: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
  const namespace = lab.routers.find((r) => r.name === router)!.namespace;
  process.kill(Number(readFileSync(`/var/run/frr/${namespace}/${daemon}.pid`, 'utf8').trim()), signal);
}

/** Both routers' running configurations. */
export const runningBoth = async (lab: Pick<FrrLab, 'vtysh'>) => ({ R1: await lab.vtysh('R1', 'show running-config'), R2: await lab.vtysh('R2', 'show running-config') });

/**
 * An AD000009 incident (its RAW names R2, the peer, as the plan's other device) whose plan over R1 and
 * R2 is approved; `apply` sends it through the relay's guard as the agent's config_cli does.
 */
export async function planApproved(opts: RelayOnLabOpts) {
  const { incident, ...k } = await relayOnLab(opts);
  const before = await runningBoth(k.lab);
  const { id, device, approve, close } = await incident('AD000009');
  await approve({ summary: 'both ends of the session', plan: PLAN });
  const apply = () => device.call('config_cli', { incident_id: id, plan: PLAN });
  return { ...k, id, before, apply, close };
}

/** The same, applied: provisional on both routers, with the first relay still running. */
export async function planPending(opts: RelayOnLabOpts) {
  const k = await planApproved(opts);
  const applied = await k.apply();
  expect(applied.isError, applied.text).toBe(false);
  expect(applied.text).toMatch(/provisional on every device/);
  const changes = (await untilIncident(k.first, k.id, (i) => (i.plan_changes ?? []).length === 2, 'holding the plan')).plan_changes!;
  expect(changes.map((c) => [c.device, c.state])).toEqual([['R1', 'pending'], ['R2', 'pending']]);
  await k.close();
  const files = (c: { change_id: string }) => ({ entry: join(k.journal, `pending-${c.change_id}.json`), outcome: join(k.journal, `outcome-${c.change_id}.json`) });
  return { ...k, changes, files };
}

export type Killed = Awaited<ReturnType<typeof appliedThenKilled>>;

/** Whether a process is still there (a zombie no longer counts). */
export function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits until the process is gone; polled (a process that is not our child cannot be awaited), the test's timeout bounds it. */
export async function untilGone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 200));
}

/**
 * The detached device server the relay started for this state folder, as its files name it; killed
 * when the test ends if it is still there (checked by its command line, so a reused pid is left alone).
 */
export function supervisedServer(stateDir: string): SupervisedServerInfo & { token: string } {
  const files = supervisedFiles(stateDir);
  const info = SupervisedServerInfo.parse(JSON.parse(readFileSync(files.info, 'utf8')));
  const token = readFileSync(files.token, 'utf8').trim();
  onTestFinished(() => {
    try {
      if (readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').includes('--supervised')) process.kill(info.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return { ...info, token };
}

export const serverFilesLeft = (stateDir: string) => Object.values(supervisedFiles(stateDir)).filter((f) => existsSync(f));
