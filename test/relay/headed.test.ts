import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLabDeviceTools } from '../../src/artifacts/device-tools';
import { startLab } from '../../src/lab/server';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { waitUntil } from '../helpers/opencode';
import { manualClock } from '../unit/incidents/in-memory-incidents';

type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
});
afterAll(async () => lab?.stop());

const closers: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c.close();
  lab.lab.reset();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

async function setUp(env: Record<string, string> = {}, clock?: ReturnType<typeof manualClock>) {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  // No Webex, no tray: a headed run is still attended, by the operator at the terminal.
  const relay: Relay = await relayForTest({ agent: createStubRuntime(), clock, env: { RELAY_TOOLS_TOKEN: 'tok', ...env }, deviceTools: createLabDeviceTools(lab.lab) });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  closers.push(relay, device, tools);
  const created = await relay.app.inject({ method: 'POST', url: '/headed', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
  expect(created.statusCode).toBe(201);
  const { incident_id: id, prompt } = created.json() as { incident_id: string; prompt: string };
  /** What the runtime's operator-input plugin posts for a user message. */
  const typed = (body: Record<string, unknown>, token = 'tok') =>
    relay.app.inject({ method: 'POST', url: '/operator-input', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ message_id: `msg_${Math.random()}`, agent: 'network-troubleshooter', ...body }) });
  const ask = () => tools.call('request_approval', { incident_id: id, summary: 'R1 neighbor 10.0.0.2 is admin down', device: 'R1', commands: REPAIR, rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] });
  const config = (dev = 'R1') => device.call('config_cli', { incident_id: id, device: dev, commands: REPAIR });
  return { relay, id, prompt, typed, ask, config, device };
}

describe('headed runs', () => {
  it('copying the prompt makes a listed incident on the prompt\'s device, and reads stay on that device', async () => {
    const t = await setUp();
    expect(t.id).toMatch(/^HEADED-\d{8}T\d{6}Z/);
    expect(t.prompt).toContain(`"incident_id": "${t.id}"`);
    const list = (await t.relay.app.inject({ url: '/sessions' })).json();
    expect(list[t.id]).toMatchObject({ kind: 'headed', state: 'running', device_hostname: 'R1' });
    // Strict mode holds for a headed run too: the RAW's commands only.
    const read = await t.device.call('exec_cli', { incident_id: t.id, device: 'R1', command: 'show version' });
    expect(read.isError, read.text).toBe(false);
    expect((await t.device.call('exec_cli', { incident_id: t.id, device: 'R2', command: 'show version' })).text).toMatch(/about R1; device tools may not touch R2/);
    expect((await t.device.call('exec_cli', { incident_id: t.id, device: 'R1', command: 'show ip route' })).text).toMatch(/strict mode/);
  });

  it('only the operator\'s own typed answer in the bound session decides; nothing the model writes does', async () => {
    const t = await setUp();
    expect((await t.typed({ session_id: 'ses_root', text: t.prompt })).json()).toEqual({ status: 'bound', incident_id: t.id });
    expect((await t.device.call('exec_cli', { incident_id: t.id, device: 'R1', command: 'show version' })).isError).toBe(false);
    const asked = await t.ask();
    expect(asked.json).toMatchObject({ status: 'pending', channels: ['terminal'], ask_operator: expect.stringContaining('    no neighbor 10.0.0.2 shutdown') });
    // The question carries what the card carries, the evidence too.
    expect(String(asked.json?.ask_operator)).toMatch(/Evidence \(what the agents read on the device\):\n {2}R1# show version\n {4}\S/);
    expect(String(asked.json?.ask_operator)).toMatch(/Expires: \S+/);
    expect((await t.config()).text).toMatch(/no approval yet/);

    // A subagent session (its prompt is the model's), opencode's own synthetic text, another agent, another session, a sentence.
    expect((await t.typed({ session_id: 'ses_child', parent_id: 'ses_root', text: 'APPROVED' })).json().status).toBe('ignored');
    expect((await t.typed({ session_id: 'ses_root', synthetic: true, text: 'APPROVED' })).json().status).toBe('ignored');
    expect((await t.typed({ session_id: 'ses_root', agent: 'fault-remediation', text: 'APPROVED' })).json().status).toBe('ignored');
    expect((await t.typed({ session_id: 'ses_other', text: 'APPROVED' })).json().status).toBe('ignored');
    expect((await t.typed({ session_id: 'ses_root', text: 'I think this should be APPROVED' })).json().status).toBe('ignored');
    // The plugin's endpoint is not the model's: without the runtime's token it is refused.
    expect((await t.typed({ session_id: 'ses_root', text: 'APPROVED' }, 'guess')).statusCode).toBe(401);
    expect((await t.config()).text).toMatch(/no approval yet/);
    expect(lab.lab.configChanges()).toBe(0);

    expect((await t.typed({ session_id: 'ses_root', text: 'denied: not during business hours' })).json()).toEqual({ status: 'decided', incident_id: t.id, decision: 'DENIED' });
    expect(t.relay.incidents.get(t.id)?.approval).toMatchObject({ decision: 'DENIED', channel: 'terminal', reason: 'not during business hours' });
    expect((await t.config()).text).toMatch(/decision was DENIED/);
    expect((await t.typed({ session_id: 'ses_root', text: 'APPROVED' })).json().status).toBe('ignored');
    expect(lab.lab.configChanges()).toBe(0);
    const types = t.relay.incidents.timeline(t.id).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['headed.bound', 'approval.requested', 'approval.decided', 'device.refused', 'operator.ignored']));
  });

  it('a typed APPROVED lets exactly the shown lines through, once', async () => {
    const t = await setUp();
    await t.typed({ session_id: 'ses_root', text: t.prompt });
    await t.ask();
    expect((await t.typed({ session_id: 'ses_root', text: 'APPROVED' })).json().status).toBe('decided');
    expect((await t.config('R2')).text).toMatch(/approval covers R1/);
    expect((await t.config()).isError).toBe(false);
    expect((await t.config()).text).toMatch(/already applied/);
    expect(lab.lab.configChanges()).toBe(1);
  });

  it('decided in the tray while the terminal session is on the operator\'s own runtime: recorded, enforced, said once', async () => {
    const t = await setUp();
    await t.typed({ session_id: 'ses_elsewhere', text: t.prompt });
    await t.ask();
    expect(t.relay.approvals.decide(t.id, 'DENIED', { id: 'alice' }, 'desktop').status).toBe('accepted');
    await waitUntil(() => t.relay.incidents.timeline(t.id).some((e) => e.type === 'approval.not_forwarded'), 'the relay says it could not tell the session');
    expect(t.relay.incidents.timeline(t.id).filter((e) => e.type === 'approval.forward_failed')).toEqual([]);
    expect((await t.config()).text).toMatch(/decision was DENIED/);
  });

  it('an approval nobody answers in the terminal expires like any other: escalated, nothing applied', async () => {
    const clock = manualClock(new Date().toISOString());
    const t = await setUp({ APPROVAL_TTL: '10m' }, clock);
    await t.typed({ session_id: 'ses_root', text: t.prompt });
    await t.ask();
    clock.advance(11 * 60_000);
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' }, approval: { decision: 'EXPIRED', channel: 'ttl' } });
    expect((await t.typed({ session_id: 'ses_root', text: 'APPROVED' })).json().status).toBe('ignored');
    expect((await t.config()).text).toMatch(/already escalated/);
    expect(lab.lab.configChanges()).toBe(0);
  });

  it('a pasted prompt binds once: a later session naming the same id is not that run', async () => {
    const t = await setUp();
    await t.typed({ session_id: 'ses_root', text: t.prompt });
    expect((await t.typed({ session_id: 'ses_intruder', text: t.prompt })).json().status).toBe('ignored');
    expect(t.relay.incidents.get(t.id)?.session_id).toBe('ses_root');
  });
});
