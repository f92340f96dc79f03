import { afterEach, describe, expect, it } from 'vitest';
import { usePostgres } from '../helpers/postgres';
import { restartableStores } from '../helpers/restartable-stores';
import type { ApplicationStatus, GateApproval } from '../../src/core/approvals/lifecycle';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { decideAs } from '../helpers/decide-as';

const relays: Relay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

/** Brings a fresh incident's gate into `target` through the lifecycle itself, as a run would. */
async function into(relay: Relay, target: string, clock: ReturnType<typeof manualClock>): Promise<string> {
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
  const id = res.json().incident_id as string;
  if (target === 'none/none') return id;
  await relay.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: REPAIR });
  if (target === 'pending/none') return id;
  if (target === 'expired/none') {
    clock.advance(31 * 60_000);
    return id;
  }
  if (target === 'superseded/none') {
    relay.incidents.transition(id, 'fail');
    return id;
  }
  await decideAs(relay, id, target.startsWith('denied') ? 'DENIED' : 'APPROVED', 'alice');
  if (target === 'denied/none' || target === 'approved/none') return id;
  const claim = relay.approvals.claim(id, 'R1', REPAIR);
  if (!claim.ok) throw new Error(claim.reason);
  if (target === 'approved/applied') claim.claim.applied('ok');
  if (target === 'approved/failed') claim.claim.failed('% Invalid input');
  return id; // approved/claimed: the relay stops during the device call
}

/** After a restart: the state each phase is in, and what a config_cli would get. */
const EXPECTED: Record<string, { after: [GateApproval, ApplicationStatus]; claim: RegExp | 'allowed' }> = {
  'none/none': { after: ['none', 'none'], claim: /no approval yet/ },
  'pending/none': { after: ['pending', 'none'], claim: /no approval yet/ },
  'approved/none': { after: ['approved', 'none'], claim: 'allowed' },
  'approved/claimed': { after: ['approved', 'failed'], claim: /retry needs a new approval/ },
  'approved/applied': { after: ['approved', 'applied'], claim: /already applied/ },
  'approved/failed': { after: ['approved', 'failed'], claim: /retry needs a new approval/ },
  'denied/none': { after: ['denied', 'none'], claim: /DENIED/ },
  'expired/none': { after: ['expired', 'none'], claim: /already escalated/ },
  'superseded/none': { after: ['superseded', 'none'], claim: /already failed/ },
};

const pg = usePostgres();

const BACKENDS = restartableStores(pg);

describe.each(BACKENDS)('the gate across a relay restart, in every state (%s)', (_name, backend, skip) => {
  it.skipIf(Boolean(skip)).each(Object.keys(EXPECTED))('%s', async (phase) => {
    const open = await backend();
    const clock = manualClock(new Date().toISOString());
    const agent = createStubRuntime();
    const first = await relayForTest({ agent, clock, store: await open(), extraChannels: () => ['desktop'] });
    const id = await into(first, phase, clock);
    await first.close();

    const second = await relayForTest({ agent, clock, store: await open(), extraChannels: () => ['desktop'] });
    relays.push(second);
    const incident = second.incidents.get(id)!;
    const { after, claim } = EXPECTED[phase]!;
    expect([incident.approval_request?.status ?? 'none', incident.application.status]).toEqual(after);
    const verdict = second.approvals.claim(id, 'R1', REPAIR);
    if (claim === 'allowed') expect(verdict.ok).toBe(true);
    else expect(verdict.ok ? 'allowed' : verdict.reason).toMatch(claim);
    // A pending approval still expires after the restart: its timer is armed again.
    if (phase === 'pending/none') {
      clock.advance(31 * 60_000);
      expect(second.incidents.get(id)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' } });
    }
  });
});
