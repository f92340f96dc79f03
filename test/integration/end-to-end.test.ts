import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert, type SampleAlertInput } from '../../src/adapters/alert-sources/sample';
import { agentLogPath, type RemediationVariant } from '../../harness/demo/brain';
import { startDemoStack, type DemoStack } from '../../harness/demo/demo-stack';
import { isTerminal } from '../../src/core/incidents/model';
import { silent } from '../helpers/relay';
import { untilIncident } from '../helpers/incident-waits';
import { repoRoot, waitUntil } from '../helpers/opencode';
import { alertPayload } from '../../harness/eval/alert-payload';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { fileQuarantine } from '../../src/core/quarantine/file-backend';
import { decideAs } from '../helpers/decide-as';

/**
 * The whole seed flow on the real parts: opencode with the repository's agents, the relay with
 * its guard and approvals, the KB over stdio, the device lab; only the model is scripted
 * (harness/demo/brain). Each alert names its own neighbor, so the scripted fault-remediation can be
 * told per incident to misbehave.
 */

const MISBEHAVING: Record<string, RemediationVariant> = {
  '10.0.0.6': 'config-before-approval',
  '10.1.1.2': 'unapproved-lines',
};

let stack: DemoStack;
const dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-'));
const agentLogs: string[] = [];

beforeAll(async () => {
  stack = await startDemoStack({
    projectDir: repoRoot,
    dataDir,
    logDir: path.join(dataDir, 'logs'),
    logger: silent,
    convergeDelayMs: 0,
    maxSleepS: 0,
    approvalChannels: ['test'],
    variantFor: (task) => MISBEHAVING[task.inputs.neighbor_ip ?? ''] ?? 'faithful',
  });
  await stack.toolsConnected();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  for (const file of agentLogs) rmSync(file, { force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const relay = () => stack.relay.relay;
const lab = () => stack.lab!.lab;

async function fire(input: SampleAlertInput, alert: object = buildSplunkAlert(input)): Promise<string> {
  const res = await request(`${stack.relay.url}/fault-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(alert),
  });
  const body = (await res.body.json()) as { incident_id: string; status: string };
  expect(res.statusCode).toBe(202);
  // 'queued' when the runtime answered after the intake stopped waiting (a loaded machine): delivered just after.
  expect(['accepted', 'queued']).toContain(body.status);
  const incident = relay().incidents.get(body.incident_id)!;
  agentLogs.push(agentLogPath(repoRoot, incident));
  return body.incident_id;
}

const until = (id: string, holds: Parameters<typeof untilIncident>[2]) => untilIncident(relay(), id, holds);

/** The incident is over and the troubleshooter has finished its turn after that (log, final notice). */
const runEnded = (id: string) =>
  until(id, (incident, timeline) => {
    if (!isTerminal(incident.state)) return false;
    const end = timeline.findLastIndex((e) => e.type === 'state.changed' && e.to === incident.state);
    return timeline.slice(end).some((e) => e.type === 'session.idle');
  });

const awaitingApproval = (id: string) => until(id, (i) => i.state === 'awaiting_approval');
const of = (id: string, type: string) => relay().incidents.timeline(id).filter((e) => e.type === type);
const neighborState = (neighbor: string, vrf?: string) => {
  const command = vrf ? `show bgp vpnv4 unicast vrf ${vrf} neighbors ${neighbor}` : `show ip bgp neighbors ${neighbor}`;
  const r = lab().exec('R1', command);
  return r.ok ? /BGP state = (\w+)/.exec(r.output)?.[1] : r.error;
};
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end'];

describe('end to end: alert → agents → approval → device, with the scripted model on the real runtime', () => {
  it('APPROVED: the subagents run, the approval goes through decide, the neighbor is Established and the incident resolved with its log', async () => {
    lab().reset();
    lab().inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const id = await fire({ device: 'R1', neighbor: '10.0.0.2', kbQueryMode: 'quick' });

    const waiting = await awaitingApproval(id);
    expect(waiting.approval_request).toMatchObject({ device: 'R1', commands: REPAIR, artifact_ref: 'intelligence-artifacts/AD000002/RAW.yaml#repair_no_shutdown' });
    expect(of(id, 'agent.started').filter((e) => e.subagent).map((e) => e.agent)).toEqual(
      expect.arrayContaining(['ia-reader', 'kb-reader', 'fault-remediation', 'msg-notify']),
    );
    const kbCalls = of(id, 'tool.completed').filter((e) => e.tool === 'kb_wiki_query');
    expect(kbCalls).toHaveLength(2);
    expect(String(kbCalls[0]?.input)).toContain('"depth":"quick"');
    expect(of(id, 'device.exec').map((e) => e.command)).toEqual([
      'show version',
      'show ip bgp neighbors 10.0.0.2',
      'show running-config | section router bgp',
      'show logging | include ADJCHANGE|CONFIG_I',
    ]);
    expect(of(id, 'notify.fault-received')).toHaveLength(1);
    expect(lab().configChanges()).toBe(0);
    expect(neighborState('10.0.0.2')).toBe('Idle');

    expect((await decideAs(relay(), id, 'APPROVED', 'alice', { channel: 'test' })).status).toBe('accepted');
    const done = await runEnded(id);

    expect(done.state).toBe('resolved');
    expect(done.outcome?.summary).toMatch(/10\.0\.0\.2 on R1 is Established again/);
    expect(neighborState('10.0.0.2')).toBe('Established');
    expect(lab().configChanges()).toBe(1);
    expect(of(id, 'device.config_applied').map((e) => e.commands)).toEqual([REPAIR]);
    expect(of(id, 'device.refused')).toEqual([]);
    expect(of(id, 'notify.final')).toHaveLength(1);

    const log = relay().sessionLogPath(done);
    await waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('| State | resolved |'), `the session log ${log} shows resolved`);
    expect(readFileSync(agentLogPath(repoRoot, done), 'utf8')).toContain('## Outcome');
  }, 240_000);

  it('DENIED: nothing is applied, the neighbor stays down and the incident is escalated', async () => {
    lab().reset();
    lab().inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const id = await fire({ device: 'R1', neighbor: '10.0.0.2' });
    await awaitingApproval(id);

    expect((await decideAs(relay(), id, 'DENIED', 'bob', { channel: 'test', reason: 'not in a change window' })).status).toBe('accepted');
    const done = await runEnded(id);

    expect(done.state).toBe('escalated');
    expect(done.outcome?.summary).toMatch(/operator denied/);
    expect(lab().configChanges()).toBe(0);
    expect(neighborState('10.0.0.2')).toBe('Idle');
    expect(of(id, 'device.config_applied')).toEqual([]);
  }, 240_000);

  it('a model that configures before the approval, or applies other lines than approved, is refused by the guard; the lab is unchanged', async () => {
    lab().reset();
    lab().inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.6' });
    lab().inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.1.1.2', vrf: 'CUST-A' });
    // Two incidents at once, each with its own misbehaving fault-remediation.
    const [early, extra] = await Promise.all([fire({ device: 'R1', neighbor: '10.0.0.6' }), fire({ device: 'R1', neighbor: '10.1.1.2', vrf: 'CUST-A' })]);

    await awaitingApproval(extra);
    expect((await decideAs(relay(), extra, 'APPROVED', 'alice', { channel: 'test' })).status).toBe('accepted');
    const [earlyDone, extraDone] = await Promise.all([runEnded(early), runEnded(extra)]);

    expect(earlyDone.state).toBe('escalated');
    expect(earlyDone.approval_request).toBeNull();
    expect(of(early, 'device.refused').map((e) => e.reason)).toEqual([expect.stringMatching(/^no approval yet/)]);
    expect(earlyDone.outcome?.summary).toMatch(/device guard refused configuration before any approval/);

    expect(extraDone.state).toBe('escalated');
    expect(of(extra, 'device.refused').map((e) => e.reason)).toEqual([expect.stringMatching(/^only the approved lines may be applied/)]);

    expect(lab().configChanges()).toBe(0);
    expect(neighborState('10.0.0.6')).toBe('Idle');
    expect(neighborState('10.1.1.2', 'CUST-A')).toBe('Idle');
    expect([...of(early, 'device.config_applied'), ...of(extra, 'device.config_applied')]).toEqual([]);
  }, 240_000);

  it('a plan whose far end is quarantined waits with no card, is asked once a person clears it, and once approved goes on both routers', async () => {
    lab().reset();
    const group = await loadArtifactGroup(path.join(repoRoot, 'intelligence-artifacts'), 'AD000009');
    const tc = group.tests.find((t) => t.file.endsWith('01-password-mismatch-approved-resolved.yaml'))!.testCase;
    for (const fault of tc.lab.faults) lab().inject(fault);
    const since = new Date().toISOString();
    const reason = 'change chg-e2e of INC-EARLIER: ROLLBACK FAILED (post-check failed): check the device';
    // The relay's own store in its data folder, as a quarantine decided earlier left it.
    await fileQuarantine(path.join(dataDir, 'relay')).add({ device: 'R2', reason, since, incident_id: null, change_id: 'chg-e2e' });
    const id = await fire({}, alertPayload('AD000009', group.fs.title, tc));

    // The agents asked for the plan over R1 and R2, were told it is held, and finished their turn waiting.
    const held = await until(id, (_i, t) => {
      const at = t.findIndex((e) => e.type === 'approval.held');
      return at >= 0 && t.slice(at).some((e) => e.type === 'session.idle' && !e.subagent);
    });
    expect(held).toMatchObject({ state: 'running', approval_request: null });
    expect(of(id, 'approval.held')).toEqual([expect.objectContaining({ device: 'R2', quarantined_since: since, quarantine_reason: reason })]);
    expect(of(id, 'approval.requested')).toEqual([]);
    // Waiting on the relay is not stopping without an outcome.
    expect(of(id, 'warning')).toEqual([]);
    expect(lab().configChanges()).toBe(0);

    await relay().quarantine.clear('R2', 'ana@example.net');
    const asked = await awaitingApproval(id);
    expect(asked.approval_request?.plan?.map((e) => e.device)).toEqual(['R1', 'R2']);
    expect(of(id, 'approval.unheld')).toEqual([expect.objectContaining({ message: 'R2 was cleared: the plan held for it is asked now' })]);

    expect((await decideAs(relay(), id, 'APPROVED', 'alice', { channel: 'test' })).status).toBe('accepted');
    const done = await runEnded(id);
    expect(done.state).toBe('resolved');
    expect(done.plan_changes?.map((c) => [c.device, c.state])).toEqual([['R1', 'confirmed'], ['R2', 'confirmed']]);
    expect(lab().configChanges()).toBe(2);
  }, 240_000);

  it("an alert whose vrf_name carries another neighbor's command is refused at intake: the field is named, no run starts, the device is untouched", async () => {
    lab().reset();
    lab().inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.1.1.2', vrf: 'CUST-A' });
    const before = relay().incidents.list().length;
    // Rendered into the RAW's revalidate command, this would read a different, healthy neighbor.
    const hostile = 'CUST-A neighbors 10.0.0.2 | include BGP state';
    const res = await request(`${stack.relay.url}/fault-alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.1.1.2', vrf: hostile })),
    });
    const body = (await res.body.json()) as { error: { code: string; message: string; details: { path: string }[] } };
    expect(res.statusCode).toBe(400);
    expect(body.error.code).toBe('invalid_alert');
    expect(body.error.details.map((d) => d.path)).toEqual(['result.vrf_name']);
    expect(body.error.message).toMatch(/is not a VRF name.*Nothing was run/);
    expect(relay().incidents.list()).toHaveLength(before);
    expect(lab().configChanges()).toBe(0);
    expect(neighborState('10.1.1.2', 'CUST-A')).toBe('Idle');
  }, 240_000);
});

describe('npm run demo', () => {
  it('runs the AD000002 demo as a process, as a person does: asks "Approve? [y/N]", takes a typed y, ends resolved and exits 0', async () => {
    const child = spawn('npm', ['run', '--silent', 'demo', '--', '--converge-ms', '500'], { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'pipe'] });
    // A hang guard, not a speed bar: beside another suite the whole run took two minutes here.
    const guard = setTimeout(() => child.kill('SIGKILL'), 240_000);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const before = stdout;
      stdout += d.toString();
      // The person answers once the question is on the screen (readline's own prompt, on stdout).
      if (!before.includes('Approve? [y/N]') && stdout.includes('Approve? [y/N]')) child.stdin.write('y\n');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(guard);
    for (const m of stdout.matchAll(/^ {2}(?:Relay|Agent) log (\S+)$/gm)) agentLogs.push(m[1]!);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toContain('The model is SCRIPTED');
    // The typed answer reached the agent through the relay: the run went on to the repair.
    expect(stdout).toMatch(/APPROVED by .+ via command line/);
    expect(stdout).toMatch(/Outcome {3}resolved/);
    expect(stdout).toMatch(/R1 neighbor 10\.0\.0\.2: BGP state = Established/);
    expect(agentLogs.filter((f) => existsSync(f)).length).toBeGreaterThanOrEqual(2);
    // Confirmed apply: the relay's own post-check kept the change before the demo ended.
    expect(stdout).toMatch(/Change {4}confirmed by post-check/);
  }, 250_000);

  it("runs another group's own scenario with --alert AD000004: its first approved case, resolved, the change confirmed by the relay's post-check", async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'demo', '--', '--alert', 'AD000004', '--approve', '--converge-ms', '500'], {
      cwd: repoRoot,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      timeout: 240_000,
    });
    for (const m of stdout.matchAll(/^ {2}(?:Relay|Agent) log (\S+)$/gm)) agentLogs.push(m[1]!);
    expect(stdout).toContain('AD000004, test case 01-max-prefix-approved-resolved.yaml');
    expect(stdout).toMatch(/Outcome {3}resolved: BGP neighbor 10\.0\.0\.2 on R1 is Established again under a maximum-prefix limit of 120/);
    // The new limit comes from the log line's prefix count, which the relay's post-check reads from the incident.
    expect(stdout).toMatch(/Change {4}confirmed by post-check/);
  }, 250_000);

  it('refuses an alert definition it has no group for, naming the ones it has', async () => {
    const run = promisify(execFile)('npm', ['run', '--silent', 'demo', '--', '--alert', 'AD999999'], { cwd: repoRoot, timeout: 60_000 });
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/no artifact group AD999999 under intelligence-artifacts\/ \(there are AD000002, AD000003, AD000004/) });
  });
});
