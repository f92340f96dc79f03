import { afterEach, describe, expect, it } from 'vitest';
import { untilIncident } from '../helpers/incident-waits';
import { quarantineRelay, REPAIR } from '../helpers/quarantine-relay';
import { unrollableDevice } from '../helpers/unrollable-device';
import { decideAs } from '../helpers/decide-as';

/**
 * One change at a time per device: while one incident's change is provisional on R1, a second
 * incident's request for R1 is held, shown as waiting for that change, and asked (its card posted)
 * once the change is confirmed or rolled back; quarantined instead when the rollback fails.
 */
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

/** A relay whose post-check reads wait for `release`; incident A's change on R1 applied and pending. */
async function busy(opts: { rollbackWorks?: boolean } = {}) {
  let release!: () => void;
  const readsWaitFor = new Promise<void>((resolve) => (release = resolve));
  const t = await quarantineRelay({ device: unrollableDevice({ readsWaitFor, rollbackWorks: () => opts.rollbackWorks ?? false }) });
  open.push(t);
  const first = await t.fire('10.0.0.2');
  expect((await t.ask(first)).json).toMatchObject({ status: 'pending' });
  await decideAs(t.relay, first, 'APPROVED', 'ana@example.net');
  const applied = await t.device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR });
  expect(applied.isError, applied.text).toBe(false);
  const change = t.relay.incidents.get(first)!.change!;
  expect(change.state).toBe('pending');

  const second = await t.fire('10.0.0.3');
  const answer = await t.ask(second);
  expect(answer.json).toMatchObject({ status: 'held', device: 'R1', waiting_for: { incident_id: first, change_id: change.change_id, deadline: change.deadline } });
  const held = t.relay.incidents.timeline(second).find((e) => e.type === 'approval.held')!;
  expect(held).toMatchObject({ waiting_for_incident: first, waiting_for_change: change.change_id });
  expect(held.message).toContain(`change ${change.change_id} of ${first}`);
  // No card yet: nothing is asked while the first change is provisional.
  expect(t.relay.incidents.get(second)).toMatchObject({ state: 'running', approval_request: null });
  expect(t.relay.approvals.heldFor(second)).toEqual({ incident_id: first, change_id: change.change_id });
  return { t, first, second, change, release };
}

describe('a second change on a busy device', () => {
  it('is asked when the first change is confirmed', async () => {
    const { t, first, second, change } = await busy();
    const confirmed = await t.relay.confirm!({ incident_id: first, change_id: change.change_id, who: { id: 'ana@example.net', authenticated_by: 'personal_token' } });
    expect(confirmed).toMatchObject({ ok: true });
    const asked = await untilIncident(t.relay, second, (i) => i.state === 'awaiting_approval');
    expect(asked.approval_request).toMatchObject({ status: 'pending', device: 'R1', commands: REPAIR });
    const types = t.relay.incidents.timeline(second).map((e) => e.type);
    expect(types.indexOf('approval.unheld')).toBeGreaterThan(types.indexOf('approval.held'));
    expect(types).toContain('approval.requested');
    expect(t.relay.approvals.heldFor(second)).toBeUndefined();
    // Decided as any request: the approver's decision counts.
    expect(await decideAs(t.relay, second, 'APPROVED', 'ana@example.net')).toMatchObject({ status: 'accepted' });
  });

  it('is asked when the first change is rolled back and read back', async () => {
    const { t, second, release } = await busy({ rollbackWorks: true });
    release();
    const asked = await untilIncident(t.relay, second, (i) => i.state === 'awaiting_approval');
    expect(asked.approval_request?.status).toBe('pending');
  });

  it('gets no card when the first change could not be rolled back: the device is quarantined and the run escalates', async () => {
    const { t, first, second, release } = await busy();
    release();
    const ended = await untilIncident(t.relay, second, (i) => i.state === 'escalated');
    expect(ended.approval_request).toBeNull();
    expect(ended.outcome?.summary).toMatch(/R1 is quarantined since .*ROLLBACK FAILED/);
    expect(t.relay.incidents.timeline(second).map((e) => e.type)).not.toContain('approval.requested');
    await untilIncident(t.relay, first, (_i, timeline) => timeline.some((e) => e.type === 'device.quarantined'));
    expect((await t.health()).quarantined_devices).toEqual([expect.objectContaining({ device: 'R1', incident_id: first })]);
  });
});
