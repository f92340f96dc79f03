import { afterEach, describe, expect, it } from 'vitest';
import type { CardSubmission } from '../../src/adapters/channels/webex/schemas';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { decideAs } from '../helpers/decide-as';

let relay: Awaited<ReturnType<typeof relayForTest>> | undefined;
afterEach(async () => relay?.close());

const ROOM = 'room-1';
async function setUp(env: Record<string, string> = {}) {
  const posted: string[] = [];
  let cards = 0;
  // Each card is its own message, as on Webex: a click carries the id of the card it was made on.
  const room = { postMarkdown: async (m: string) => void posted.push(m), postCard: async () => ({ id: `card-${++cards}` }) };
  relay = await relayForTest({ agent: createStubRuntime(), room, env: { MSG_BOT_TOKEN: 't', MSG_ROOM_ID: ROOM, ...env } });
  const fire = async (neighbor: string) => {
    const res = await relay!.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ neighbor_ip: neighbor })) });
    const id = res.json().incident_id as string;
    await relay!.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001', `no neighbor ${neighbor} shutdown`] });
    return id;
  };
  return { relay, posted, fire };
}

/** A click on a card shaped as the seed defines it: inputs alert_def_id and decision, no incident_id. */
const seedClick = (decision: 'APPROVED' | 'DENIED', over: Partial<CardSubmission> = {}): CardSubmission => ({
  actionId: `a-${Math.random()}`,
  messageId: 'card-1',
  roomId: ROOM,
  personId: 'p1',
  personEmail: 'alice@example.net',
  created: new Date().toISOString(),
  inputs: { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', decision },
  ...over,
});

describe('card submissions', () => {
  it('a seed-shaped click decides the one incident of that alert awaiting approval, and is acknowledged', async () => {
    const t = await setUp();
    const id = await t.fire('10.0.0.2');
    await t.relay.webex!.onCardSubmission(seedClick('APPROVED'));
    expect(t.relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'alice@example.net', channel: 'webex' });
    expect(t.posted.at(-1)).toMatch(new RegExp(`✅ \\*\\*${id}\\*\\*.*APPROVED by alice@example.net via webex`));
  });

  it('with two incidents of that alert awaiting approval, a seed-shaped click decides the one whose card it is', async () => {
    const t = await setUp();
    const a = await t.fire('10.0.0.2');
    const b = await t.fire('10.0.0.6');
    await t.relay.webex!.onCardSubmission(seedClick('DENIED', { messageId: 'card-2' }));
    expect(t.relay.incidents.get(a)?.approval).toBeNull();
    expect(t.relay.incidents.get(b)?.approval).toMatchObject({ decision: 'DENIED', request_id: t.relay.incidents.get(b)?.approval_request?.request_id });
  });

  it('a click on an earlier card decides nothing, however the card is shaped, and says which request is pending', async () => {
    const t = await setUp();
    const id = await t.fire('10.0.0.2');
    const first = t.relay.incidents.get(id)!.approval_request!.request_id;
    expect((await decideAs(t.relay, id, 'DENIED', 'bob', { channel: 'api' })).status).toBe('accepted');
    // As when the agent has read the decision (its forward may still be on the way).
    if (t.relay.incidents.can(id, 'resume')) t.relay.incidents.transition(id, 'resume');
    await t.relay.approvals.request({ incident_id: id, summary: 'again', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.9 shutdown'] });
    const second = t.relay.incidents.get(id)!.approval_request!.request_id;
    // The seed's shape on the first card (card-1), then the relay's own shape naming the first request.
    await t.relay.webex!.onCardSubmission(seedClick('APPROVED', { messageId: 'card-1' }));
    expect(t.posted.at(-1)).toMatch(new RegExp(`that card was for an earlier approval request of \\*\\*${id}\\*\\*; nothing was decided\\. Request ${second} is pending now`));
    await t.relay.webex!.onCardSubmission(seedClick('APPROVED', { messageId: 'card-1', inputs: { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id: id, request_id: first, decision: 'APPROVED' } }));
    expect(t.posted.at(-1)).toMatch(/that card was for an earlier approval request/);
    expect(t.relay.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null, approval_request: { request_id: second, status: 'pending' } });
    // Its own card still decides it.
    await t.relay.webex!.onCardSubmission(seedClick('APPROVED', { messageId: 'card-2' }));
    expect(t.relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', request_id: second });
  });

  it('with two incidents of that alert awaiting approval, a click on neither card is refused as ambiguous and says so', async () => {
    const t = await setUp();
    const a = await t.fire('10.0.0.2');
    const b = await t.fire('10.0.0.6');
    await t.relay.webex!.onCardSubmission(seedClick('APPROVED', { messageId: 'card-from-elsewhere' }));
    expect(t.relay.incidents.get(a)?.approval).toBeNull();
    expect(t.relay.incidents.get(b)?.approval).toBeNull();
    expect(t.posted.at(-1)).toMatch(/2 incidents of AD000002 are awaiting approval/);
    expect(t.posted.at(-1)).toContain(a);
    expect(t.posted.at(-1)).toContain(b);
  });

  it('with none awaiting, the click is acknowledged and decides nothing', async () => {
    const t = await setUp();
    await t.relay.webex!.onCardSubmission(seedClick('DENIED'));
    expect(t.posted.at(-1)).toMatch(/no active incident is awaiting approval for AD000002/);
  });

  it('knows its room however the id is spelled (padding, url-safe or standard base64), and refuses other rooms', async () => {
    const uuid = '7d5a0a3c-6f0e-4f61-9a2e-0c1d2e3f4a5b';
    const standard = Buffer.from(`ciscospark://us/ROOM/${uuid}`).toString('base64');
    const urlSafe = Buffer.from(`ciscospark://us/ROOM/${uuid}`).toString('base64url');
    const posted: string[] = [];
    const room = { postMarkdown: async (m: string) => void posted.push(m), postCard: async () => ({ id: 'card-1' }) };
    relay = await relayForTest({ agent: createStubRuntime(), room, env: { MSG_BOT_TOKEN: 't', MSG_ROOM_ID: standard } });
    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    const id = res.json().incident_id as string;
    await relay.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001'] });
    const other = Buffer.from('ciscospark://us/ROOM/00000000-0000-0000-0000-000000000000').toString('base64url');
    await relay.webex!.onCardSubmission(seedClick('APPROVED', { roomId: other }));
    expect(relay.incidents.get(id)?.approval).toBeNull();
    expect(posted.at(-1)).toMatch(/another room/);
    await relay.webex!.onCardSubmission(seedClick('APPROVED', { roomId: urlSafe }));
    expect(relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', channel: 'webex' });
  });

  it('checks the approver as for any card', async () => {
    const t = await setUp({ MSG_APPROVERS: 'bob@example.net' });
    const id = await t.fire('10.0.0.2');
    await t.relay.webex!.onCardSubmission(seedClick('APPROVED'));
    expect(t.relay.incidents.get(id)?.approval).toBeNull();
    expect(t.posted.at(-1)).toMatch(/alice@example.net is not allowed to approve/);
  });
});
