import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { people, policyPeopleEnv, TWO_PERSON_RULE } from '../helpers/policy-people';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { manualClock } from '../unit/incidents/in-memory-incidents';

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const closers: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c.close();
});

describe('the headed terminal under a two-person policy rule', () => {
  it('the question names the rule; a typed APPROVED counts as the os_user\'s person, or not at all, and says so in the terminal', async () => {
    const agent = createStubRuntime();
    const relay: Relay = await relayForTest({ agent, clock: manualClock('2026-11-28T12:00:00.000Z'), env: { RELAY_TOOLS_TOKEN: 'tok', ...policyPeopleEnv() } });
    const url = await relay.listen({ port: 0, host: '127.0.0.1' });
    const tools = await connectMcp(`${url}/mcp`, 'tok');
    closers.push(relay, tools);
    const id = (await relay.app.inject({ method: 'POST', url: '/headed', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) })).json().incident_id as string;
    const post = (path: string, body: Record<string, unknown>) =>
      relay.app.inject({ method: 'POST', url: `/headed/${id}${path}`, headers: { authorization: `Bearer ${relay.terminalSecret}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const session = (await agent.createSession({ title: id })).id;
    expect((await post('/terminal', { session_id: session })).statusCode).toBe(200);
    expect((await tools.call('request_approval', { incident_id: id, summary: 'unshut', device: 'R1', commands: REPAIR })).json).toMatchObject({ status: 'pending' });
    const shown = () => agent.prompts.filter((p) => p.sessionId === session && p.noReply).map((p) => p.text);
    expect(shown()[0]).toContain(`Policy: ${TWO_PERSON_RULE}: 2 approvals from change-manager, tier2 — none given yet`);

    const stranger = await post('/terminal/input', { session_id: session, text: 'APPROVED', user: 'root' });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json()).toMatchObject({ error: { code: 'not_allowed_by_policy', details: { rule: TWO_PERSON_RULE } } });
    expect(shown().at(-1)).toMatch(/Fault Relay: not allowed by the change policy/);

    const ana = await post('/terminal/input', { session_id: session, text: 'APPROVED', user: people.ana.os_user });
    expect(ana.statusCode).toBe(202);
    expect(ana.json()).toMatchObject({ standing: 'recorded: 1 of 2' });
    expect(shown().at(-1)).toContain('Fault Relay: your approval is counted: recorded: 1 of 2');
    expect(relay.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null });

    const carl = await post('/terminal/input', { session_id: session, text: 'APPROVED', user: people.carl.os_user });
    expect(carl.statusCode).toBe(200);
    expect(carl.json()).toMatchObject({ status: 'accepted', standing: 'approved: 2 of 2' });
    expect(relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', channel: 'terminal', by: people.carl.name });
  });
});
