import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { linesSha256 } from '../../src/core/approvals/lines';
import { DeviceToolError, type DeviceTools, WITHOUT_PROVISIONAL } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { withProvisional } from '../helpers/provisional-stand-in';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import type { IncidentStore } from '../../src/core/incidents/store';
import { startLab } from '../../harness/ios-lab/server';
import { connectMcp } from '../helpers/mcp-client';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { decideAs } from '../helpers/decide-as';

type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
});
afterAll(async () => lab?.stop());

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const dirs: string[] = [];
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  lab.lab.reset();
});

const storeIn = (dir: string) =>
  createPersistentStore({ ...((b) => ({ backend: b.open, archive: b.archive }))(createFileBackends(dir)), timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent });

/** A relay with the desktop channel live (so approvals wait for a human), the lab behind the guard, and MCP clients. */
async function start(opts: { deviceTools?: DeviceTools; store?: IncidentStore; agent?: ReturnType<typeof createStubRuntime>; clock?: ReturnType<typeof manualClock> } = {}) {
  const agent = opts.agent ?? createStubRuntime();
  const relay = await relayForTest({
    agent,
    clock: opts.clock,
    store: opts.store,
    env: { RELAY_TOOLS_TOKEN: 'tok', APPROVAL_TTL: '30m' },
    deviceTools: opts.deviceTools ? withProvisional(opts.deviceTools) : createLabDeviceTools(lab.lab),
    extraChannels: () => ['desktop'],
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  open.push(relay, device, tools);
  const fire = async () => {
    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    return res.json().incident_id as string;
  };
  const config = (incident_id: string, commands: string[], dev = 'R1') => device.call('config_cli', { incident_id, device: dev, commands });
  const ask = (incident_id: string, over: Record<string, unknown> = {}) => tools.call('request_approval', { incident_id, summary: 'admin down', device: 'R1', commands: REPAIR, ...over });
  return { relay, agent, url, device, tools, fire, config, ask };
}

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

function injectFault() {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
}

describe('approval gate', () => {
  it('an approval request for another device is refused when it is made, and changes nothing', async () => {
    const t = await start();
    const id = await t.fire();
    const res = await t.ask(id, { device: 'R3' });
    expect(res).toMatchObject({ isError: true, text: expect.stringMatching(/about R1; an approval can only cover that device, not R3/) });
    expect(t.relay.incidents.get(id)).toMatchObject({ state: 'running', approval_request: null });
  });

  it('of ten concurrent config_cli calls after one approval, exactly one reaches the device', async () => {
    injectFault();
    const hold = deferred();
    const real = createLabDeviceTools(lab.lab);
    let reached = 0;
    const slow: DeviceTools = { ...WITHOUT_PROVISIONAL,
      execCli: (d, c) => real.execCli(d, c),
      async configCli(d, c) {
        reached += 1;
        await hold.promise;
        return real.configCli(d, c);
      },
    };
    const t = await start({ deviceTools: slow });
    const id = await t.fire();
    expect((await t.ask(id)).json?.status).toBe('pending');
    expect((await decideAs(t.relay, id, 'APPROVED', 'alice')).status).toBe('accepted');

    const calls = Array.from({ length: 10 }, () => t.config(id, REPAIR));
    // Nine are refused while the first is still at the device; then it is let through.
    const settled: Awaited<(typeof calls)[number]>[] = [];
    for (const c of calls) void c.then((r) => settled.push(r));
    await new Promise<void>((resolve) => {
      const check = () => (settled.length === 9 ? resolve() : setImmediate(check));
      check();
    });
    hold.resolve();
    const results = await Promise.all(calls);
    expect(reached).toBe(1);
    expect(lab.lab.configChanges()).toBe(1);
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(results.filter((r) => r.isError).every((r) => /being applied by another call|already applied/.test(r.text))).toBe(true);
    expect(t.relay.incidents.get(id)?.application).toMatchObject({ status: 'applied', device: 'R1' });
    expect(t.relay.incidents.timeline(id).filter((e) => e.type === 'device.refused')).toHaveLength(9);
  });

  it('a device tool server that was never reached releases the claim; one that failed mid-call spends the approval', async () => {
    injectFault();
    const real = createLabDeviceTools(lab.lab);
    let mode: 'unreachable' | 'fails' | 'ok' = 'unreachable';
    const flaky: DeviceTools = { ...WITHOUT_PROVISIONAL,
      execCli: (d, c) => real.execCli(d, c),
      async configCli(d, c) {
        if (mode === 'unreachable') throw new DeviceToolError('config_cli', 'device tool server unreachable: connect ECONNREFUSED', deviceFailure('server_unreachable', false));
        if (mode === 'fails') throw new DeviceToolError('config_cli', '% Invalid input detected', deviceFailure('rejected', true));
        return real.configCli(d, c);
      },
    };
    const t = await start({ deviceTools: flaky });
    const id = await t.fire();
    await t.ask(id);
    await decideAs(t.relay, id, 'APPROVED', 'alice');

    expect((await t.config(id, REPAIR)).text).toMatch(/unreachable/);
    expect(t.relay.incidents.get(id)?.application.status).toBe('none');
    mode = 'fails';
    expect((await t.config(id, REPAIR)).text).toMatch(/Invalid input/);
    expect(t.relay.incidents.get(id)?.application).toMatchObject({ status: 'failed', error: '% Invalid input detected' });
    mode = 'ok';
    expect((await t.config(id, REPAIR)).text).toMatch(/failed; the device state is unknown, so a retry needs a new approval/);
    expect(lab.lab.configChanges()).toBe(0);

    // A new approval, a new chance: the run asks again, a human approves again.
    // As when the agent has read the decision (its forward may still be on the way).
    if (t.relay.incidents.can(id, 'resume')) t.relay.incidents.transition(id, 'resume');
    expect((await t.ask(id)).json?.status).toBe('pending');
    await decideAs(t.relay, id, 'APPROVED', 'alice');
    expect((await t.config(id, REPAIR)).isError).toBe(false);
    expect(lab.lab.configChanges()).toBe(1);
  });

  it('the card, the tray and the guard agree on the lines by their hash', async () => {
    // The lab's parser refuses these lines, so its dry run would stop them before any approval
    // (test/relay/preview.test.ts): a stand-in whose preview accepts keeps this test about the hash.
    const t = await start({ deviceTools: createLabDeviceTools(lab.lab) });
    const id = await t.fire();
    const res = await t.ask(id, { commands: ['ip as-path access-list 10 permit _65002_', ' neighbor 10.0.0.2 description  two  spaces'] });
    const sha = linesSha256(['ip as-path access-list 10 permit _65002_', ' neighbor 10.0.0.2 description  two  spaces']);
    expect(res.json).toMatchObject({ status: 'pending', lines_sha256: sha });
    expect(t.relay.incidents.get(id)?.approval_request).toMatchObject({ lines_sha256: sha, status: 'pending', channels: ['desktop'] });
  });

  it('after a restart: a pending approval still expires, an interrupted application is spent, an applied one stays applied', async () => {
    injectFault();
    const dir = mkdtempSync(join(tmpdir(), 'gate-restart-'));
    dirs.push(dir);
    const agent = createStubRuntime();
    const clock = manualClock(new Date().toISOString());
    const hold = deferred();
    const real = createLabDeviceTools(lab.lab);
    const hanging: DeviceTools = { ...WITHOUT_PROVISIONAL, execCli: (d, c) => real.execCli(d, c), configCli: () => hold.promise.then(() => '') };

    // 1. One incident pending, one claimed (its device call never returns: the relay dies during it).
    const a = await start({ agent, store: storeIn(dir), deviceTools: hanging, clock });
    const pending = await a.fire();
    await a.ask(pending);
    const claimed = await a.relay.app
      .inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ neighbor_ip: '10.0.0.6', system: 'R1' })) })
      .then((r) => r.json().incident_id as string);
    await a.ask(claimed);
    await decideAs(a.relay, claimed, 'APPROVED', 'alice');
    void a.config(claimed, REPAIR).catch(() => undefined);
    await new Promise<void>((resolve) => {
      const check = () => (a.relay.incidents.get(claimed)?.application.status === 'claimed' ? resolve() : setImmediate(check));
      check();
    });
    for (const c of open.splice(0).reverse()) await c.close().catch(() => undefined);

    // 2. Restarted.
    const b = await start({ agent, store: storeIn(dir), clock });
    expect(b.relay.incidents.get(claimed)?.application).toMatchObject({ status: 'failed', error: expect.stringMatching(/restarted during the device call/) });
    expect(b.relay.incidents.timeline(claimed).map((e) => e.type)).toContain('device.config_interrupted');
    expect((await b.config(claimed, REPAIR)).text).toMatch(/retry needs a new approval/);
    expect(lab.lab.configChanges()).toBe(0);

    expect(b.relay.incidents.get(pending)?.approval_request?.status).toBe('pending');
    clock.advance(31 * 60_000);
    expect(b.relay.incidents.get(pending)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' }, approval: { decision: 'EXPIRED', channel: 'ttl' } });
    expect((await b.config(pending, REPAIR)).text).toMatch(/already escalated/);
    hold.resolve();
  });

  it('a decision after the wall clock stepped past expires_at is refused: the request expires then, and nothing is applied', async () => {
    injectFault();
    // The wall clock jumps an hour ahead (NTP after a laptop's sleep); the TTL's timer has not fired.
    const base = manualClock(new Date().toISOString());
    let stepMs = 0;
    const clock = { ...base, now: () => new Date(base.now().getTime() + stepMs) };
    const t = await start({ clock });
    const id = await t.fire();
    await t.ask(id);
    expect(t.relay.incidents.get(id)?.approval_request?.status).toBe('pending');
    stepMs = 60 * 60_000;
    const answer = await decideAs(t.relay, id, 'APPROVED', 'alice');
    expect(answer).toMatchObject({ status: 'already_decided', approval: { decision: 'EXPIRED', channel: 'ttl' } });
    expect(t.relay.incidents.get(id)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' } });
    expect((await t.config(id, REPAIR)).text).toMatch(/already escalated/);
    expect(lab.lab.configChanges()).toBe(0);
  });

  it('a run that ends while its approval is pending leaves nothing to approve', async () => {
    const t = await start();
    const id = await t.fire();
    await t.ask(id);
    t.relay.incidents.transition(id, 'fail');
    expect(t.relay.incidents.get(id)?.approval_request?.status).toBe('superseded');
    expect((await decideAs(t.relay, id, 'APPROVED', 'alice')).status).toBe('not_awaiting');
    expect(t.relay.incidents.timeline(id).map((e) => e.type)).toContain('approval.superseded');
  });
});
