import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createAlertmanagerSource } from '../../../src/adapters/alert-sources/alertmanager';
import { alertmanagerWebhookSchema } from '../../../src/adapters/alert-sources/alertmanager-webhook';
import { dedupKeyOf, keyOf, normalizeAlert } from '../../../src/adapters/alert-sources/normalize';
import { inboundAlertSchema } from '../../../src/adapters/alert-sources/schema';
import { splunkAlert } from '../../../src/adapters/alert-sources/splunk';
import { createFaultKeyRules, faultKeyRule } from '../../../src/runbooks/fault-key';
import { faultSignatureSchema } from '../../../src/runbooks/schema-fs';
import { alertmanagerDefinition } from '../../../src/runbooks/source-mappings';
import { formatIssue, validateArtifactGroupDir } from '../../../src/runbooks/validate';
import { amAlert, amWebhook } from '../../helpers/alertmanager';
import { captureLogger } from '../../helpers/capture-logger';
import { ad000002, silent } from '../../helpers/relay';
import { tempDir } from '../../helpers/temp-dir';

const LINE = (intf: string) => `Nov 21 10:00:00 R1 %LINK-5-CHANGED: Interface ${intf}, changed state to administratively down`;
const ad3 = (over: Record<string, unknown> = {}) =>
  inboundAlertSchema.parse({ sid: 's1', result: { alert_def_id: 'AD000003', system: 'R1', device_ip: '192.0.2.11', _raw: LINE('GigabitEthernet2'), ...over } });
const rules = createFaultKeyRules('intelligence-artifacts', silent);

describe('fault keys from the FS (key_fields, extract)', () => {
  it('AD000003 is keyed by device and interface, from the result or from _raw', async () => {
    const rule = await rules('AD000003');
    expect(rule?.fields.map((f) => f.name)).toEqual(['interface']);
    const key = (over: Record<string, unknown>) => splunkAlert(ad3(over), rule).dedup_key;
    const gi2 = key({});
    expect(gi2).toBe(JSON.stringify(['AD000003', 'r1', 'GigabitEthernet2']));
    // The same interface, whether the search extracted it or only the log line names it: one fault.
    expect(key({ interface: 'GigabitEthernet2', _raw: undefined })).toBe(gi2);
    expect(key({ system: 'r1' })).toBe(gi2);
    // BGP fields are not this fault's key: a neighbor_ip in one alert does not split it.
    expect(key({ neighbor_ip: '10.0.0.2', vrf_name: 'CUST-A' })).toBe(gi2);
    // Another interface or another device is another fault.
    expect(key({ _raw: LINE('GigabitEthernet3') })).not.toBe(gi2);
    expect(key({ system: 'R2' })).not.toBe(gi2);
    // The extract pattern is broader than detection: a LINK-3 line still names its interface.
    expect(key({ _raw: 'R1 %LINK-3-UPDOWN: Interface GigabitEthernet2, changed state to down' })).toBe(gi2);
  });

  it('the lazy key equals the normalized one, and the interface read from _raw reaches the agent', async () => {
    const rule = (await rules('AD000003'))!;
    for (const over of [{}, { interface: 'Gi4' }, { _raw: 'no link line here' }, { alert_def_id: 'ad000003' }]) {
      expect(dedupKeyOf(ad3(over), rule)).toBe(normalizeAlert(ad3(over), rule).dedup_key);
    }
    const n = normalizeAlert(ad3(), rule);
    expect(n.alert_vars.interface).toBe('GigabitEthernet2');
    expect(n.field_sources).toEqual({ device_hostname: 'result', neighbor_ip: 'absent', vrf_name: 'absent', interface: '_raw' });
    expect(normalizeAlert(ad3({ interface: 'Gi4' }), rule).field_sources.interface).toBe('result');
  });

  it("takes the FS's other pattern fields from the log line when the search did not extract them, never over the result's own", async () => {
    const rule = (await rules('AD000004'))!;
    const line = 'Mar  1 09:00:00.000 UTC: %BGP-3-MAXPFXEXCEED: No. of prefix received from 10.0.0.2 (afi 0): 12 exceed limit 11';
    const alert = (over: Record<string, unknown>) => inboundAlertSchema.parse({ sid: 's1', result: { alert_def_id: 'AD000004', system: 'R1', _raw: line, ...over } });
    // The relay's post-check builds its expectation (the new limit) from the prefix count: the incident must hold it.
    expect(normalizeAlert(alert({}), rule).alert_vars).toMatchObject({ neighbor_ip: '10.0.0.2', prefix_count: '12', prefix_limit: '11' });
    expect(normalizeAlert(alert({ prefix_count: '40' }), rule).alert_vars.prefix_count).toBe('40');
    expect(normalizeAlert(alert({ _raw: 'no such line' }), rule).alert_vars.prefix_count).toBeUndefined();
  });

  it('AD000002 declares no key_fields: the BGP key, exactly as before', async () => {
    expect(await rules('AD000002')).toBeUndefined();
    expect(await rules('NOT-AN-ID/../x')).toBeUndefined();
    const alert = inboundAlertSchema.parse(ad000002({ vrf_name: 'CUST-A' }));
    expect(splunkAlert(alert, await rules('AD000002')).dedup_key).toBe(keyOf('AD000002', 'R1', '10.0.0.2', 'CUST-A'));
  });

  it('an Alertmanager alert of the fault gets the same key as the Splunk alert', async () => {
    const fs = faultSignatureSchema.parse(parse(await readFile('intelligence-artifacts/AD000003/FS.yaml', 'utf8')));
    fs.sources = { alertmanager: { match: { alertname: 'InterfaceAdminDown' }, fields: { device_hostname: 'instance', interface: 'ifName' } } };
    const definition = alertmanagerDefinition(fs)!;
    expect(definition.key).toBeDefined();
    const source = createAlertmanagerSource({ definitions: async () => [definition] });
    const labels = (ifName: string) => ({ alertname: 'InterfaceAdminDown', instance: 'R1', ifName });
    const { alerts } = await source.read(alertmanagerWebhookSchema.parse(amWebhook([amAlert({ labels: labels('GigabitEthernet2') }), amAlert({ labels: labels('GigabitEthernet3'), fingerprint: 'f2' })])));
    expect(alerts[0]!.dedup_key).toBe(splunkAlert(ad3(), faultKeyRule(fs)).dedup_key);
    expect(alerts[1]!.dedup_key).not.toBe(alerts[0]!.dedup_key);
    expect(alerts[0]!.normalized().field_sources).toMatchObject({ device_hostname: 'label', interface: 'label' });
  });

  it('reads each FS once, looks again at most every recheckMs, and picks up an edit', async () => {
    const dir = tempDir('fault-key-');
    await cp('intelligence-artifacts/AD000003', join(dir, 'AD000003'), { recursive: true });
    let t = 0;
    const { logger, text } = captureLogger();
    const cached = createFaultKeyRules(dir, logger, { recheckMs: 1000, now: () => t });
    const first = await cached('AD000003');
    expect(await cached('AD000003')).toBe(first);
    const file = join(dir, 'AD000003', 'FS.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('key_fields: [device_hostname, interface]', 'key_fields: [device_hostname, interface, device_ip]'));
    // Within recheckMs the compiled rule is reused without touching the file.
    expect(await cached('AD000003')).toBe(first);
    t = 2000;
    expect((await cached('AD000003'))?.fields.map((f) => f.name)).toEqual(['interface', 'device_ip']);
    await writeFile(file, 'kind: fault_signature\n');
    t = 4000;
    expect(await cached('AD000003')).toBeUndefined();
    expect(text()).toContain('is not a valid fault signature');
  });

  it('the validator points at a key field that is no variable, with a fix', async () => {
    const dir = tempDir('fault-key-');
    await cp('intelligence-artifacts/AD000003', join(dir, 'AD000003'), { recursive: true });
    const file = join(dir, 'AD000003', 'FS.yaml');
    const text = (await readFile(file, 'utf8')).replace('key_fields: [device_hostname, interface]', 'key_fields: [device_hostname,\n  interfase]');
    await writeFile(file, text);
    const { issues } = await validateArtifactGroupDir(join(dir, 'AD000003'));
    const line = text.split('\n').findIndex((l) => l.includes('interfase')) + 1;
    expect(issues.map((i) => formatIssue(i, dir, { hint: true }))).toEqual([
      `AD000003/FS.yaml:${line}:3: key field interfase is not a variable of the FS\n    fix: declare interfase under variables:, or correct the name`,
    ]);
  });
});
