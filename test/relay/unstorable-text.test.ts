import { describe, expect, it, onTestFinished } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { amAlert, amWebhook, bgpLabels } from '../helpers/alertmanager';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { createStubRuntime } from '../helpers/stub-runtime';
import { ad000002, relayForTest } from '../helpers/relay';
import { teamMember } from '../team/team-relays';

/**
 * Text no store can hold (a NUL, a lone surrogate), in a value or a key, on every route that
 * writes: refused at the door as 400 naming the field, by the laptop store's relay and the team's
 * alike, and the relay takes the next alert as before.
 */
const pg = usePostgres();

/** JSON text as a sender writes it: JSON.stringify writes a NUL and a lone surrogate as escapes. */
const post = (relay: Relay, url: string, body: unknown) =>
  relay.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

const HOSTILE: { name: string; url: string; body: unknown; path: string }[] = [
  { name: 'NUL in the log line', url: '/fault-alert', body: ad000002({ _raw: 'neighbor 10.0.0.2 Down\u0000' }), path: 'result._raw' },
  { name: 'lone surrogate in a field', url: '/fault-alert', body: ad000002({ site: 'lab \ud800' }), path: 'result.site' },
  { name: 'lone low surrogate in a key', url: '/fault-alert', body: ad000002({ 'x\udc00': 'v' }), path: 'result' },
  { name: 'NUL in the search name', url: '/fault-alert', body: ad000002({}, { search_name: 'BGP\u0000' }), path: 'search_name' },
  { name: 'NUL in a label', url: '/alerts/alertmanager', body: amWebhook([amAlert({ labels: bgpLabels({ job: 'frr\u0000' }) })]), path: 'alerts.0.labels.job' },
  { name: 'lone surrogate in an annotation key', url: '/alerts/alertmanager', body: amWebhook([amAlert({ annotations: { ['s\ud83d']: 'x' } })]), path: 'alerts.0.annotations' },
];

async function refusesThenAccepts(relay: Relay) {
  for (const h of HOSTILE) {
    const res = await post(relay, h.url, h.body);
    expect(res.statusCode, `${h.name}: ${res.body}`).toBe(400);
    const { error } = res.json();
    expect(error.code, h.name).toBe('invalid_alert');
    expect(error.details?.[0]?.path, h.name).toBe(h.path);
    expect(error.message, h.name).toContain(h.path);
    expect(error.message).toMatch(/cannot store/);
  }
  // A decision's comment is stored text too (its route answers for its own body).
  const decision = await post(relay, '/incidents/INC-1/decision', { request_id: 'REQ-1', decision: 'DENIED', comment: 'no\u0000' });
  expect(decision.statusCode).toBe(400);
  expect(decision.json().error).toMatchObject({ code: 'invalid_body', details: [{ path: 'comment' }] });
  // A valid surrogate pair is Unicode text: taken.
  const ok = await post(relay, '/fault-alert', ad000002({ site: 'lab \ud83d\ude00' }));
  expect(ok.statusCode, ok.body).toBe(202);
  const batch = await post(relay, '/alerts/alertmanager', amWebhook([amAlert({ labels: bgpLabels({ peer: '10.0.0.3' }) })]));
  expect(batch.statusCode, batch.body).toBe(202);
  expect(relay.incidents.list()).toHaveLength(2);
}

describe('text no store can hold', () => {
  it('the laptop store: refused at the door naming the field, then a normal alert is 202', async () => {
    const relay = await relayForTest({ agent: createStubRuntime() });
    onTestFinished(() => relay.close());
    await refusesThenAccepts(relay);
  });

  it.skipIf(Boolean(noPostgres))('the team store: refused at the door naming the field, then a normal alert is 202', async () => {
    const a = await teamMember(await pg.freshDatabase());
    await refusesThenAccepts(a.relay);
    await a.store.flush();
    expect(a.store.health()).toMatchObject({ ok: true, pending_writes: 0 });
  });
});
