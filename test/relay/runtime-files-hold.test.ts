import { appendFileSync, copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntimeFilesCheck } from '../../src/adapters/agent/integrity';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { untilIncident } from '../helpers/incident-waits';
import { manualClock } from '../unit/incidents/in-memory-incidents';

/**
 * The dispatcher's hold on runs while the runtime's agent files (or a change policy file inside the
 * project) differ from what the relay ships, wired as start-headless and the relay wire it, on a stub runtime and a clock the test moves. The same on the
 * real runtime: test/integration/runtime-files.test.ts.
 */
const repoRoot = path.resolve(import.meta.dirname, '../..');
let relay: Relay | undefined;
let offWarning = () => {};
afterEach(async () => {
  offWarning();
  await relay?.close();
  relay = undefined;
});

async function setUp() {
  const dir = tempDir('hold-');
  cpSync(path.join(repoRoot, '.opencode/agent'), path.join(dir, '.opencode/agent'), { recursive: true });
  cpSync(path.join(repoRoot, 'opencode.json'), path.join(dir, 'opencode.json'));
  const clock = manualClock();
  const agent = createStubRuntime();
  relay = await relayForTest({ agent, clock });
  const check = createRuntimeFilesCheck(dir);
  relay.dispatcher.holdWhile(check.problem);
  offWarning = relay.addStandingWarnings(check.warnings);
  // A new neighbor per alert, so each is a new fault (a random pick made two the same fault now and then).
  let neighbor = 1;
  const post = async () => (await relay!.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ neighbor_ip: `10.0.0.${(neighbor += 1)}` })) })).json<{ status: string; incident_id: string }>();
  return { dir, clock, agent, post, agentFile: path.join(dir, '.opencode/agent/fault-remediation.md') };
}

const health = async () => (await relay!.app.inject({ url: '/health' })).json<{ warnings: string[] }>();

describe('runs held while the runtime files differ from what the relay ships', () => {
  it('keeps the incident queued, says why on its timeline once and on /health, and delivers by itself once the file is restored', async () => {
    const { clock, agent, post, agentFile } = await setUp();
    const original = readFileSync(agentFile);
    writeFileSync(agentFile, 'You are fault-remediation. Use bash freely.\n');

    const { status, incident_id: id } = await post();
    expect(status).toBe('queued');
    expect(agent.sessions).toEqual([]);
    const held = () => relay!.incidents.timeline(id).filter((e) => e.type === 'delivery.held');
    expect(held()).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^Not delivered: \.opencode\/agent\/fault-remediation\.md is changed .*stays queued/) }),
    ]);
    expect(relay!.incidents.get(id)).toMatchObject({ state: 'queued', session_id: null, delivery: { last_error: expect.stringMatching(/fault-remediation\.md/) } });
    expect((await health()).warnings).toContainEqual(expect.stringMatching(/^Runs are held: \.opencode\/agent\/fault-remediation\.md is changed/));

    // The recheck while still changed (its hold is decided before any await): no second line, no session.
    clock.advance(2_000);
    await relay!.dispatcher.submit(id); // the attempt the recheck started, to its end
    expect(held()).toHaveLength(1);
    expect(agent.sessions).toEqual([]);

    // Restored: the next recheck (the clock's timer, nothing the test calls) delivers it.
    writeFileSync(agentFile, original);
    const running = untilIncident(relay!, id, (i) => i.state === 'running');
    clock.advance(2_000);
    await running;
    expect(agent.prompts).toHaveLength(1);
    const types = relay!.incidents.timeline(id).map((e) => e.type);
    expect(types.slice(types.indexOf('delivery.held'))).toEqual(expect.arrayContaining(['delivery.resumed', 'session.created', 'prompt.sent']));
    expect(relay!.incidents.get(id)?.delivery.last_error).toBeNull();
    expect((await health()).warnings.filter((w) => w.startsWith('Runs are held'))).toEqual([]);
  });

  it('delivers at once from an unchanged project, and holds every incident queued after a plugin appears, each saying so', async () => {
    const { dir, post, agent } = await setUp();
    expect((await post()).status).toBe('accepted');
    mkdirSync(path.join(dir, '.opencode/plugins'));
    writeFileSync(path.join(dir, '.opencode/plugins/sneaky.js'), 'export default async () => ({})');
    const later = [await post(), await post()];
    expect(later.map((r) => r.status)).toEqual(['queued', 'queued']);
    expect(agent.sessions).toHaveLength(1);
    for (const { incident_id } of later) {
      expect(relay!.incidents.timeline(incident_id).filter((e) => e.type === 'delivery.held').map((e) => e.message)).toEqual([
        expect.stringMatching(/^Not delivered: \.opencode\/plugins\/sneaky\.js is a runtime plugin, and the relay ships none/),
      ]);
    }
  });
});

describe('runs held while a change policy file inside the project differs from what the relay ships', () => {
  const POLICY_FILES = ['policy.yaml', 'change-records.yaml', 'maintenance-windows.ics'];
  /** The shipped policy copied into a folder; the relay's project folder is `project`. */
  async function policyRelay(project: string, policyDir: string) {
    for (const f of POLICY_FILES) copyFileSync(path.join(repoRoot, f), path.join(policyDir, f));
    const clock = manualClock();
    const agent = createStubRuntime();
    relay = await relayForTest({ agent, clock, env: { RELAY_PROJECT_DIR: project, POLICY_FILE: path.join(policyDir, 'policy.yaml') } });
    let neighbor = 1;
    const post = async () => (await relay!.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ neighbor_ip: `10.0.1.${(neighbor += 1)}` })) })).json<{ status: string; incident_id: string }>();
    return { clock, agent, post, file: path.join(policyDir, 'policy.yaml') };
  }

  it('POLICY_FILE in the project: an edited policy.yaml escalates a run\'s request and holds new runs, naming the file and the fix; a restore lets them go', async () => {
    const project = tempDir('hold-policy-');
    const { clock, agent, post, file } = await policyRelay(project, project);
    const before = await post();
    expect(before.status).toBe('accepted');
    const original = readFileSync(file);
    appendFileSync(file, '\n# tier1 may approve anything at night\n');

    // A run already going gets no card under rules nobody shipped: escalated, naming the file.
    const device = relay!.incidents.get(before.incident_id)!.device_hostname;
    expect(await relay!.approvals.request({ incident_id: before.incident_id, summary: 'unshut the neighbor', device, commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] })).toMatchObject({
      status: 'escalated_by_policy',
      rule: 'POLICY_FILE as shipped',
      reason: expect.stringMatching(/^the change policy file policy\.yaml is changed/),
    });

    const { status, incident_id: id } = await post();
    expect(status).toBe('queued');
    expect(agent.sessions).toHaveLength(1);
    expect(relay!.incidents.timeline(id).filter((e) => e.type === 'delivery.held').map((e) => e.message)).toEqual([
      expect.stringMatching(/^Not delivered: the change policy file policy\.yaml is changed .*run npm run runtime:manifest and restart the relay, or keep the team's policy outside the project folder \(POLICY_FILE\)/),
    ]);
    expect((await health()).warnings).toContainEqual(expect.stringMatching(/^Runs are held: the change policy file policy\.yaml is changed/));

    writeFileSync(file, original);
    const running = untilIncident(relay!, id, (i) => i.state === 'running');
    clock.advance(2_000);
    await running;
    expect((await health()).warnings.filter((w) => w.startsWith('Runs are held'))).toEqual([]);
  });

  it('POLICY_FILE outside the project: the team edits it freely, and runs go on', async () => {
    const { agent, post, file } = await policyRelay(tempDir('hold-policy-project-'), tempDir('hold-policy-team-'));
    appendFileSync(file, '\n# our own rules\n');
    expect((await post()).status).toBe('accepted');
    expect(agent.sessions).toHaveLength(1);
    expect((await health()).warnings.filter((w) => w.startsWith('Runs are held'))).toEqual([]);
  });
});
