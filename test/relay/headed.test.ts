import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { startLab } from '../../harness/ios-lab/server';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { waitUntil } from '../helpers/opencode';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { decideAs } from '../helpers/decide-as';

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
  const agent = createStubRuntime();
  const relay: Relay = await relayForTest({ agent, clock, env: { RELAY_TOOLS_TOKEN: 'tok', ...env }, deviceTools: createLabDeviceTools(lab.lab) });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  closers.push(relay, device, tools);
  const created = await relay.app.inject({ method: 'POST', url: '/headed', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
  expect(created.statusCode).toBe(201);
  const { incident_id: id, prompt } = created.json<{ incident_id: string; prompt: string }>();
  const post = (path: string, body: Record<string, unknown>, token = relay.terminalSecret) =>
    relay.app.inject({ method: 'POST', url: `/headed/${id}${path}`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  /** What npm run headed does when it opens the terminal: a session on the runtime, bound to the incident. */
  const bind = async (sessionId?: string) => {
    const session = sessionId ?? (await agent.createSession({ title: id })).id;
    return { session, res: await post('/terminal', { session_id: session }) };
  };
  /** What npm run headed reports when the operator sends a message in that session. */
  const typed = (session: string, text: string, token?: string) => post('/terminal/input', { session_id: session, text, user: 'jane' }, token);
  /** What the relay wrote into the operator's session itself. */
  const shownTo = (session: string) => agent.prompts.filter((p) => p.sessionId === session && p.noReply).map((p) => p.text);
  const ask = () => tools.call('request_approval', { incident_id: id, summary: 'R1 neighbor 10.0.0.2 is admin down', device: 'R1', commands: REPAIR, rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] });
  const config = (dev = 'R1', commands = REPAIR) => device.call('config_cli', { incident_id: id, device: dev, commands });
  return { relay, id, prompt, bind, typed, shownTo, ask, config, device };
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

  it('only the operator\'s own typed answer in the bound terminal decides, for the request the relay showed there', async () => {
    const t = await setUp();
    const { session, res } = await t.bind();
    expect(res.json()).toEqual({ status: 'bound', incident_id: t.id, session_id: session });
    expect((await t.device.call('exec_cli', { incident_id: t.id, device: 'R1', command: 'show version' })).isError).toBe(false);
    const asked = await t.ask();
    expect(asked.json).toMatchObject({ status: 'pending', channels: ['terminal'], request_id: expect.stringMatching(/^REQ-/) });
    expect(asked.json).not.toHaveProperty('ask_operator');
    const requestId = String(asked.json?.request_id);
    // The relay itself wrote the question into the operator's session: lines first, device, hash, request, evidence.
    const [question] = t.shownTo(session);
    expect(question).toContain(`APPROVAL NEEDED — ${t.id} on R1 — request ${requestId}`);
    expect(question).toMatch(/lines hash [0-9a-f]{12}\):\n {4}router bgp 65001\n {4}no neighbor 10\.0\.0\.2 shutdown/);
    expect(question!.indexOf('no neighbor 10.0.0.2 shutdown')).toBeLessThan(question!.indexOf('R1 neighbor 10.0.0.2 is admin down'));
    expect(question).toMatch(/Evidence \(what the agents read on the device\):\n {2}R1# show version\n {4}\S/);
    expect((await t.config()).text).toMatch(/no approval yet/);

    // Not the tools token (the runtime holds it), not another session, and nothing but the exact words.
    expect((await t.typed(session, 'APPROVED', 'tok')).statusCode).toBe(401);
    expect((await t.typed('ses_other', 'APPROVED')).json().error.code).toBe('not_this_terminal');
    for (const text of ['approved? why does it shut 10.0.0.9', 'approved', 'APPROVED please', 'I think this should be APPROVED', 'APPROVED\nand more']) {
      const res = await t.typed(session, text);
      expect(res.statusCode, text).toBe(422);
      expect(res.json().error.code).toBe('not_a_decision');
    }
    // The operator is told, in the terminal, that nothing was decided.
    expect(t.shownTo(session).at(-1)).toMatch(/^Fault Relay: nothing was decided\..*type APPROVED or DENIED as the whole message/);
    expect((await t.config()).text).toMatch(/no approval yet/);
    expect(lab.lab.configChanges()).toBe(0);

    const denied = await t.typed(session, 'DENIED: not during business hours');
    expect(denied.json()).toEqual({ status: 'accepted', incident_id: t.id, request_id: requestId, decision: 'DENIED' });
    expect(t.relay.incidents.get(t.id)?.approval).toMatchObject({ decision: 'DENIED', channel: 'terminal', by: 'jane (terminal)', reason: 'not during business hours', request_id: requestId });
    expect((await t.config()).text).toMatch(/decision was DENIED/);
    expect((await t.typed(session, 'APPROVED')).statusCode).toBe(409);
    expect(lab.lab.configChanges()).toBe(0);
    const types = t.relay.incidents.timeline(t.id).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['headed.bound', 'approval.requested', 'approval.shown', 'operator.not_a_decision', 'approval.decided', 'device.refused']));
    // The runtime plugin's old endpoint is gone: nothing the tools token reaches decides.
    expect((await t.relay.app.inject({ method: 'POST', url: '/operator-input', headers: { authorization: 'Bearer tok', 'content-type': 'application/json' }, payload: '{}' })).statusCode).toBe(404);
  });

  it('a typed APPROVED lets exactly the shown lines through, once, to the incident\'s own device', async () => {
    const t = await setUp();
    const { session } = await t.bind();
    await t.ask();
    expect((await t.typed(session, 'APPROVED - change window CHG-42')).json().status).toBe('accepted');
    expect((await t.config('R2')).text).toMatch(/approval covers R1/);
    // The model's spelling of the device is not what is sent: the incident's own name is.
    const applied = await t.config(' r1 ', [...REPAIR.slice(0, 1), `${REPAIR[1]}   `]);
    expect(applied.isError, applied.text).toBe(false);
    expect(t.relay.incidents.get(t.id)?.application).toMatchObject({ status: 'applied', device: 'R1' });
    expect((await t.config()).text).toMatch(/already applied/);
    expect(lab.lab.configChanges()).toBe(1);
  });

  it('a request the relay could not show in the terminal is not decided from it', async () => {
    const t = await setUp();
    await t.ask(); // no terminal bound yet: nowhere to show it
    expect(t.relay.incidents.timeline(t.id).map((e) => e.type)).toContain('approval.not_shown');
    const { session } = await t.bind();
    const res = await t.typed(session, 'APPROVED');
    expect(res.statusCode).toBe(409);
    expect(res.json().error.message).toMatch(/has not been shown in this terminal/);
    expect(t.relay.incidents.get(t.id)?.approval).toBeNull();
  });

  it('decided in the tray while the terminal session is on the operator\'s own runtime: recorded, enforced, said once', async () => {
    const t = await setUp();
    await t.bind('ses_elsewhere');
    await t.ask();
    expect((await decideAs(t.relay, t.id, 'DENIED', 'alice')).status).toBe('accepted');
    await waitUntil(() => t.relay.incidents.timeline(t.id).some((e) => e.type === 'approval.not_forwarded'), 'the relay says it could not tell the session');
    expect(t.relay.incidents.timeline(t.id).filter((e) => e.type === 'approval.forward_failed')).toEqual([]);
    expect((await t.config()).text).toMatch(/decision was DENIED/);
  });

  it('an approval nobody answers in the terminal expires like any other: escalated, nothing applied', async () => {
    const clock = manualClock(new Date().toISOString());
    const t = await setUp({ APPROVAL_TTL: '10m' }, clock);
    const { session } = await t.bind();
    await t.ask();
    clock.advance(11 * 60_000);
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' }, approval: { decision: 'EXPIRED', channel: 'ttl' } });
    expect((await t.typed(session, 'APPROVED')).statusCode).toBe(409);
    expect((await t.config()).text).toMatch(/already escalated/);
    expect(lab.lab.configChanges()).toBe(0);
  });

  it('an approved change not applied within the apply window lapses: a new decision is needed', async () => {
    const clock = manualClock(new Date().toISOString());
    const t = await setUp({ APPROVAL_TTL: '10m', APPROVAL_APPLY_WINDOW: '2m' }, clock);
    const { session } = await t.bind();
    await t.ask();
    expect((await t.typed(session, 'APPROVED')).json().status).toBe('accepted');
    expect(t.relay.incidents.get(t.id)?.approval?.apply_by).toBe(new Date(clock.now().getTime() + 120_000).toISOString());
    clock.advance(3 * 60_000);
    expect(t.relay.incidents.get(t.id)?.approval_request?.status).toBe('expired');
    expect(t.relay.incidents.timeline(t.id).map((e) => e.type)).toContain('approval.lapsed');
    expect((await t.config()).text).toMatch(/EXPIRED/);
    expect(lab.lab.configChanges()).toBe(0);
  });

  it('a terminal binds once: another session naming the same incident is refused', async () => {
    const t = await setUp();
    const { session } = await t.bind();
    const intruder = await t.bind('ses_intruder');
    expect(intruder.res.statusCode).toBe(409);
    expect(intruder.res.json().error.code).toBe('already_bound');
    expect(t.relay.incidents.get(t.id)?.session_id).toBe(session);
    expect((await t.relay.app.inject({ method: 'POST', url: `/headed/${t.id}/terminal`, headers: { 'content-type': 'application/json' }, payload: '{"session_id":"x"}' })).statusCode).toBe(401);
  });
});
