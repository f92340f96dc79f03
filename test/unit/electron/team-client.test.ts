import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createTeamClient, type TeamClient, type TeamStatus } from '../../../electron/team-client';
import type { UiEvent } from '../../../renderer/bridge/contract';
import { newToken } from '../../../src/core/operators/operators';
import type { Relay } from '../../../src/relay/create-relay';
import { ad000002 } from '../../helpers/relay';
import { team, teamRelayForTest } from '../../helpers/team-relay';

const { ana, vic, secret: SECRET } = team;
const open: Array<{ stop?(): Promise<void>; close?(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await (o.stop ?? o.close)!.call(o);
});

async function teamRelay(): Promise<{ relay: Relay; url: string }> {
  const started = await teamRelayForTest();
  open.push(started.relay);
  return started;
}

/** A client with its events and statuses recorded, and a way to wait for one (no sleeps). */
function client(url: string, token: string) {
  const events: UiEvent[] = [];
  const statuses: TeamStatus[] = [];
  let notify = () => {};
  const c: TeamClient = createTeamClient({ url, token, onEvent: (e) => (events.push(e), notify()), onStatus: (s) => (statuses.push(s), notify()) });
  open.push(c);
  const until = (test: () => boolean) => new Promise<void>((resolve) => ((notify = () => test() && resolve()), notify()));
  return { c, events, statuses, until };
}

const postAlert = (url: string, body: unknown) => request(`${url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, body: JSON.stringify(body) }).then((r) => r.body.json() as Promise<{ incident_id: string }>);

describe('the tray as a client of the team relay', () => {
  it('follows the team\'s incidents live with a personal token, and decides as that person', async () => {
    const { relay, url } = await teamRelay();
    const { c, events, until } = client(url, ana.token);
    await until(() => events.some((e) => e.type === 'snapshot'));
    expect(c.status()).toEqual({ connected: true });

    const { incident_id } = await postAlert(url, ad000002());
    await until(() => c.incidents().some((i) => i.incident_id === incident_id));
    await relay.approvals.request({ incident_id, summary: 'Remove the shutdown', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    await until(() => c.pending().some((i) => i.incident_id === incident_id));

    const requestId = relay.incidents.get(incident_id)!.approval_request!.request_id;
    expect(await c.decide({ incident_id, request_id: requestId, decision: 'APPROVED', reason: 'from the tray' })).toEqual({ ok: true, by: 'Ana Ruiz' });
    expect(relay.incidents.get(incident_id)?.approval).toMatchObject({ by: 'Ana Ruiz', channel: 'api', reason: 'from the tray' });
    await until(() => c.pending().length === 0);
    const again = await c.decide({ incident_id, request_id: requestId, decision: 'DENIED' });
    expect(again).toMatchObject({ ok: false, status: 409, code: 'already_decided', message: expect.stringContaining('by Ana Ruiz via api') });
  });

  it('a viewer sees the incidents but is told it cannot decide; a wrong token is refused in words', async () => {
    const { relay, url } = await teamRelay();
    const { incident_id } = await postAlert(url, ad000002());
    await relay.approvals.request({ incident_id, summary: 'Remove the shutdown', device: 'R1', commands: ['router bgp 65001'] });
    const viewer = client(url, vic.token);
    await viewer.until(() => viewer.c.pending().length === 1);
    expect(await viewer.c.decide({ incident_id, request_id: relay.incidents.get(incident_id)!.approval_request!.request_id, decision: 'APPROVED' })).toEqual({ ok: false, status: 403, code: 'not_an_approver', message: 'vic@example.net is a viewer: only approvers decide.' });

    const stranger = client(url, newToken().token);
    await stranger.until(() => stranger.statuses.some((s) => !s.connected));
    expect(stranger.c.status().problem).toMatch(/^the team relay refused the personal token \(401\)/);
    expect(stranger.c.incidents()).toEqual([]);
  });
});
