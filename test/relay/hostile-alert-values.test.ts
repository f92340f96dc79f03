import { afterEach, describe, expect, it } from 'vitest';
import { batchAnswerSchema } from '../../src/core/incidents/alert-source';
import type { Relay } from '../../src/relay/create-relay';
import { amAlert, amWebhook, bgpLabels } from '../helpers/alertmanager';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

/**
 * Alert values that would become part of a command the relay runs (the RAW's show commands, its
 * post-check, its configuration lines) are held to the format the runbook declares for them, on
 * every sender: refused with the field named, and nothing is started.
 */
const HOSTILE_VRF = 'CUST-A neighbors 10.1.1.2 | include BGP state';

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const withoutVrf = ({ vrf: _vrf, ...labels }: Record<string, string>) => labels;
const post = (r: Relay, url: string, body: unknown) => r.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('POST /fault-alert with a value that fails its declared format', () => {
  it('answers 400 invalid_alert naming result.vrf_name, and no incident or run is made', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent });
    const res = await post(relay, '/fault-alert', ad000002({ vrf_name: HOSTILE_VRF }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'invalid_alert',
        message: expect.stringMatching(/^alert refused: result\.vrf_name "CUST-A neighbors 10\.1\.1\.2 \| include BGP state" is not a VRF name .*Nothing was run/),
        details: [{ path: 'result.vrf_name', message: expect.stringContaining("the runbook's format for vrf_name") }],
      },
    });
    expect(relay.incidents.list()).toEqual([]);
    expect(agent.sessions).toEqual([]);

    // The same fault with a VRF name is taken as before.
    const good = await post(relay, '/fault-alert', ad000002({ vrf_name: 'CUST-A' }));
    expect(good.statusCode, good.body).toBe(202);
    expect(relay.incidents.get(good.json().incident_id)?.alert_vars.vrf_name).toBe('CUST-A');
  });

  it('holds a number a configuration line is built from to its format (AD000004 prefix_count)', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const res = await post(relay, '/fault-alert', ad000002({ alert_def_id: 'AD000004', prefix_count: '12\nneighbor 10.0.0.2 shutdown' }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.details).toEqual([{ path: 'result.prefix_count', message: expect.stringContaining('is not a whole number') }]);
    expect(relay.incidents.list()).toEqual([]);
  });
});

describe('POST /alerts/alertmanager with a value that fails its declared format', () => {
  it('lists the alert as unmatched naming the label, whether the mapping names it or it arrives under the variable\'s own name', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent });
    const alerts = [
      amAlert({ fingerprint: 'mapped', labels: bgpLabels({ vrf: HOSTILE_VRF }) }),
      // No `vrf` label: a label named like the variable itself would otherwise reach the run unchecked.
      amAlert({ fingerprint: 'own-name', labels: { ...withoutVrf(bgpLabels()), vrf_name: HOSTILE_VRF } }),
    ];
    const res = await post(relay, '/alerts/alertmanager', amWebhook(alerts));
    expect(res.statusCode, res.body).toBe(202);
    const answer = batchAnswerSchema.parse(res.json());
    expect(answer.accepted).toEqual([]);
    expect(answer.unmatched).toEqual([
      expect.objectContaining({ ref: 'mapped', reason: expect.stringMatching(/^label vrf="CUST-A neighbors 10\.1\.1\.2 \| include BGP state" is not a valid vrf for vrf_name/) }),
      expect.objectContaining({ ref: 'own-name', reason: expect.stringMatching(/^labels\.vrf_name "CUST-A neighbors 10\.1\.1\.2 \| include BGP state" is not a VRF name .*nothing was run \(alert definition AD000002\)$/) }),
    ]);
    expect(relay.incidents.list()).toEqual([]);
    expect(agent.sessions).toEqual([]);
  });
});

describe('a headed prompt with a value that fails its declared format', () => {
  it('is refused on POST /headed and on the UI prompt copier, naming the field; no incident is made', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const headed = await post(relay, '/headed', ad000002({ vrf_name: HOSTILE_VRF }));
    expect(headed.statusCode, headed.body).toBe(400);
    expect(headed.json().error).toMatchObject({ code: 'invalid_alert', details: [{ path: 'result.vrf_name' }] });
    const copier = await post(relay, '/ui/api/direct-prompt', { alert_def_id: 'AD000002', device: 'R1', mode: 'strict', vars: { neighbor_ip: '10.1.1.2', vrf_name: HOSTILE_VRF } });
    expect(copier.statusCode, copier.body).toBe(400);
    expect(copier.json().error).toMatchObject({ code: 'invalid_prompt_input', details: [{ path: 'result.vrf_name' }] });
    expect(relay.incidents.list()).toEqual([]);
  });
});
