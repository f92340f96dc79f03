import { afterEach, describe, expect, it } from 'vitest';
import { fieldsFromRaw } from '../../src/adapters/alert-sources/raw-fields';
import type { Relay } from '../../src/relay/create-relay';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

let relay: Relay | undefined;
afterEach(async () => relay?.close());

/** Splunk's webhook as its documentation shows it: metadata may be null, every result value a string. */
const splunk = (result: Record<string, unknown>, top: Record<string, unknown> = {}) => ({
  sid: 'rt_scheduler__admin__search__RMD5e461a1e38fb6a9b2_at_1700000000_2.0',
  search_name: null,
  app: null,
  owner: null,
  results_link: 'https://splunk.example.net:8000/app/search/@go?sid=rt_scheduler_2.0',
  ...top,
  result: {
    _time: '1700000000.000',
    host: 'R1',
    source: '/var/log/network/R1.log',
    sourcetype: 'cisco:ios',
    alert_def_id: 'AD000002',
    system: 'R1',
    count: '1',
    ...result,
  },
});

const post = (body: unknown) => relay!.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('Splunk as it really posts', () => {
  it('takes an unsaved search (null metadata) with string values, and keeps _time, host and source', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const res = await post(splunk({ neighbor_ip: '10.0.0.2', neighbor_as: '65002', _raw: 'Nov 21 10:00:00 R1 %BGP-5-ADJCHANGE: neighbor 10.0.0.2 Down Admin. shutdown' }));
    expect(res.statusCode).toBe(202);
    const incident = relay.incidents.get(res.json().incident_id)!;
    expect(incident.alert_vars).toMatchObject({ _time: '1700000000.000', host: 'R1', source: '/var/log/network/R1.log', neighbor_as: '65002' });
    expect(incident.alert_vars).not.toHaveProperty('search_name');
    expect(incident.field_sources).toEqual({ device_hostname: 'result', neighbor_ip: 'result', vrf_name: 'absent' });
  });

  it('reads neighbor and VRF from _raw when the search did not extract them, and never merges two neighbors', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const a = await post(splunk({ _raw: 'Nov 21 10:00:00 R1 %BGP-5-ADJCHANGE: neighbor 10.0.0.2 vpn vrf CUST-A Down Admin. shutdown' }));
    const b = await post(splunk({ _raw: 'Nov 21 10:00:05 R1 %BGP-5-ADJCHANGE: neighbor 10.0.0.6 Down Admin. shutdown' }));
    const again = await post(splunk({ _raw: 'Nov 21 10:00:09 R1 %BGP-5-ADJCHANGE: neighbor 10.0.0.2 vpn vrf CUST-A Down Admin. shutdown' }));
    expect([a.json().status, b.json().status, again.json().status]).toEqual(['accepted', 'accepted', 'duplicate']);
    expect(again.json().incident_id).toBe(a.json().incident_id);
    const first = relay.incidents.get(a.json().incident_id)!;
    expect(first.alert_vars).toMatchObject({ neighbor_ip: '10.0.0.2', vrf_name: 'CUST-A' });
    expect(first.field_sources).toEqual({ device_hostname: 'result', neighbor_ip: '_raw', vrf_name: '_raw' });
    expect(relay.incidents.get(b.json().incident_id)!.alert_vars).toMatchObject({ neighbor_ip: '10.0.0.6' });
  });

  it('reads FRR adjacency lines too, and takes Splunk\'s host as the device when no field names it', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const res = await post(
      splunk({ system: undefined, host: 'R2', _raw: '2026/11/23 17:18:10.643259 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.1.0.1(R1) in vrf CUST-A Down Admin. shutdown' }),
    );
    expect(res.statusCode).toBe(202);
    const incident = relay.incidents.get(res.json().incident_id)!;
    expect(incident.device_hostname).toBe('R2');
    expect(incident.alert_vars).toMatchObject({ neighbor_ip: '10.1.0.1', vrf_name: 'CUST-A' });
    expect(incident.field_sources).toEqual({ device_hostname: 'result.host', neighbor_ip: '_raw', vrf_name: '_raw' });
  });

  it('refuses a multi-value key field by name, and joins other multi-value fields', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const multi = await post(splunk({ neighbor_ip: ['10.0.0.2', '10.0.0.6'] }));
    expect(multi.statusCode).toBe(400);
    expect(multi.json().error).toMatchObject({ code: 'invalid_alert', details: [{ path: 'result.neighbor_ip', message: expect.stringMatching(/one value per alert: Splunk sent 2/) }] });
    const one = await post(splunk({ neighbor_ip: ['10.0.0.2'], tags: ['bgp', 'core'] }));
    expect(one.statusCode).toBe(202);
    expect(relay.incidents.get(one.json().incident_id)!.alert_vars).toMatchObject({ neighbor_ip: '10.0.0.2', tags: 'bgp, core' });
  });
});

describe('adjacency lines', () => {
  it.each([
    ['%BGP-5-ADJCHANGE: neighbor 10.0.0.2 Down Admin. shutdown', { neighbor_ip: '10.0.0.2' }],
    ['%BGP-5-ADJCHANGE: neighbor 10.0.0.2 vpn vrf CUST-A Up', { neighbor_ip: '10.0.0.2', vrf_name: 'CUST-A' }],
    ['%BGP-5-ADJCHANGE: neighbor 2001:db8::2 Down Peer closed the session', { neighbor_ip: '2001:db8::2' }],
    ['BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Admin. shutdown', { neighbor_ip: '10.0.0.2' }],
    ['%SYS-5-CONFIG_I: Configured from console by admin', {}],
  ])('%s', (raw, expected) => {
    expect(fieldsFromRaw(raw)).toEqual(expected);
  });
});
