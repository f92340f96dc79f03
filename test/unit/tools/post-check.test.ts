import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadArtifactGroup, rawReadOnlyCommands } from '../../../src/runbooks/load';
import { capturedOnDevice, planPostCheck, type PostCheckPlan } from '../../../src/core/changes/post-check';

const artifacts = join(__dirname, '../../../intelligence-artifacts');
const ESTABLISHED = 'BGP neighbor is 10.0.0.2,  remote AS 65002, external link\n  BGP state = Established, up for 00:00:05\n';

describe('the post-check the relay runs after a change', () => {
  it("is the RAW's revalidate step after the repair and its waits, as the device's platform runs it", async () => {
    const { raw } = await loadArtifactGroup(artifacts, 'AD000002');
    const ios = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2' }) as PostCheckPlan;
    expect(ios).toMatchObject({ step: 'revalidate_established', command: 'show ip bgp neighbors 10.0.0.2', waitS: 10, attempts: 6, intervalS: 10 });
    const frrVrf = planPostCheck(raw, { device_hostname: 'r1', neighbor_ip: '10.0.0.2', vrf_name: 'blue', device_platform: 'frr' }) as PostCheckPlan;
    expect(frrVrf.command).toBe('show bgp vrf blue neighbors 10.0.0.2');
  });

  it('passes only when every expectation holds on the output, and names what failed', async () => {
    const { raw } = await loadArtifactGroup(artifacts, 'AD000002');
    const plan = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2' }) as PostCheckPlan;
    expect(plan.check(`${ESTABLISHED}  Prefixes Current:  0  3\n`)).toEqual({ ok: true, failed: [] });
    const idle = plan.check('BGP neighbor is 10.0.0.2\n  BGP state = Idle\n');
    expect(idle.ok).toBe(false);
    expect(idle.failed.join(' ')).toMatch(/Established/);
    // Up, but no routes: the RAW's own expectation (prefixes > 0) fails the check.
    expect(plan.check(`${ESTABLISHED}  Prefixes Current:  0  0\n`).ok).toBe(false);
  });

  it("reads what the run captured from the device's own outputs on the timeline, never from the model", async () => {
    const { raw } = await loadArtifactGroup(artifacts, 'AD000003');
    const vars = { device_hostname: 'R1', interface: 'Gi2' };
    // Before the device has named the interface, the check cannot be built: a person or the deadline decides.
    expect(planPostCheck(raw, vars)).toMatchObject({ reason: expect.stringMatching(/need a value the device has not shown/) });
    const at = new Date().toISOString();
    const timeline = [
      { at, type: 'device.exec', message: '', command: 'show interfaces Gi2', output: 'GigabitEthernet2 is administratively down, line protocol is down\n' },
      // A message from the agent that claims another interface is not device output.
      { at, type: 'agent.notice', message: 'GigabitEthernet9 is up, line protocol is up' },
    ];
    const seen = capturedOnDevice(raw, vars, timeline);
    expect(seen.interface_name).toBe('GigabitEthernet2');
    const plan = planPostCheck(raw, seen) as PostCheckPlan;
    expect(plan.step).toBe('revalidate_interface_up');
    expect(plan.check('GigabitEthernet2 is up, line protocol is up\n').ok).toBe(true);
    expect(plan.check('GigabitEthernet2 is administratively down, line protocol is down\n').ok).toBe(false);
  });

  it('refuses to render a value that fails its format: the command is not run, and strict mode allows none shaped by it', async () => {
    const { raw } = await loadArtifactGroup(artifacts, 'AD000002');
    const hostile = { device_hostname: 'R1', neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A neighbors 10.0.0.2 | include BGP state' };
    expect(planPostCheck(raw, capturedOnDevice(raw, hostile, []))).toEqual({ reason: expect.stringMatching(/^the post-check command was not run: vrf_name "CUST-A neighbors 10\.0\.0\.2 \| include BGP state" is not a VRF name/) });
    expect(rawReadOnlyCommands(raw, hostile).some((c) => c.includes('10.0.0.2'))).toBe(false);
    // An alert field under a name the RAW captures from the device is not the device's word.
    const planned = planPostCheck(raw, capturedOnDevice(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2', prefixes_received: '5' }, [])) as PostCheckPlan;
    expect(planned.check(`${ESTABLISHED}  Prefixes Current:  0  0\n`).ok).toBe(false);
  });

  it('an anchored capture refuses a description line: text the change controls cannot pass the check', async () => {
    const { raw } = await loadArtifactGroup(artifacts, 'AD000002');
    const ios = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2' }) as PostCheckPlan;
    // Up, no routes, and a description written to look like a prefix count, before the real line.
    expect(ios.check(`${ESTABLISHED} Description: Prefixes Current: 0 5\n    Prefixes Current:          0          0\n`)).toMatchObject({ ok: false });
    const frr = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2', device_platform: 'frr' }) as PostCheckPlan;
    const frrUp = 'BGP neighbor is 10.0.0.2, remote AS 65002, local AS 65001, external link\n Description: 5 accepted prefixes\n  BGP state = Established, up for 00:00:05\n';
    expect(frr.check(`${frrUp}  0 accepted prefixes\n`)).toMatchObject({ ok: false });
    expect(frr.check(`${frrUp}  3 accepted prefixes\n`)).toEqual({ ok: true, failed: [] });
  });
});
