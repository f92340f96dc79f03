import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const json = { 'content-type': 'application/json' };
const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

describe('a headed run for a fault that already has an open incident', () => {
  it('joins that incident instead of making a second one that asks for the same change', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), extraChannels: () => ['desktop'] });
    const alert = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: json, payload: JSON.stringify(ad000002()) });
    const id = alert.json().incident_id as string;
    await relay.approvals.request({ incident_id: id, summary: 'remove the shutdown', device: 'R1', commands: COMMANDS });
    const before = relay.incidents.list().length;

    const headed = await relay.app.inject({ method: 'POST', url: '/headed', headers: json, payload: JSON.stringify(ad000002()) });
    expect(headed.statusCode).toBe(200);
    expect(headed.json()).toMatchObject({ incident_id: id, joined: true, device_hostname: 'R1' });
    const from = await relay.app.inject({ method: 'POST', url: `/headed/from/${id}` });
    expect(from.statusCode).toBe(200);
    expect(from.json()).toMatchObject({ incident_id: id, joined: true });
    // The prompt copier hands out nothing to paste: a pasted copy would be a second run.
    const copied = await relay.app.inject({ method: 'POST', url: '/ui/api/direct-prompt', headers: json, payload: JSON.stringify({ alert_def_id: 'AD000002', device: 'R1', mode: 'strict', vars: { neighbor_ip: '10.0.0.2' } }) });
    expect(copied.statusCode).toBe(409);
    expect(copied.json()).toMatchObject({ error: { code: 'fault_already_open', message: expect.stringContaining(id) } });

    expect(relay.incidents.list()).toHaveLength(before);
    expect(relay.approvals.pending().map((i) => i.incident_id)).toEqual([id]);
    expect(relay.incidents.timeline(id).filter((e) => e.type === 'headed.joined')).toHaveLength(3);
  });

  it('another fault, or a run that has ended, still gets its own headed incident', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), extraChannels: () => ['desktop'] });
    const alert = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: json, payload: JSON.stringify(ad000002()) });
    const id = alert.json().incident_id as string;
    const other = await relay.app.inject({ method: 'POST', url: '/headed', headers: json, payload: JSON.stringify(ad000002({ neighbor_ip: '10.0.0.9' })) });
    expect(other.statusCode).toBe(201);
    expect(other.json().incident_id).not.toBe(id);

    await relay.approvals.request({ incident_id: id, summary: 'remove the shutdown', device: 'R1', commands: COMMANDS });
    relay.incidents.transition(id, 'escalate');
    const taken = await relay.app.inject({ method: 'POST', url: `/headed/from/${id}` });
    expect(taken.statusCode).toBe(201);
    expect(taken.json().incident_id).toMatch(/^HEADED-/);
  });
});
