import { beforeAll, describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../../../harness/raw-tests/clock';
import { type DeviceTools, WITHOUT_PROVISIONAL } from '../../../src/core/changes/device-contract';
import { createLabDeviceTools } from '../../../harness/ios-lab/lab-device-tools';
import { runRaw, type ApprovalRequest } from '../../../harness/raw-tests/engine';
import { loadArtifactGroup, rawReadOnlyCommands, type ArtifactGroup } from '../../../src/runbooks/load';
import { loadInventory, type Inventory } from '../../../harness/ios-lab/inventory';
import { createLab, type Lab } from '../../../harness/ios-lab/lab';

let ad2: ArtifactGroup;
let inventory: Inventory;
beforeAll(async () => {
  ad2 = await loadArtifactGroup('intelligence-artifacts', 'AD000002');
  inventory = await loadInventory();
});

function setup(): { clock: VirtualClock; lab: Lab; tools: DeviceTools; calls: string[] } {
  const clock = createVirtualClock();
  const lab = createLab({ inventory, clock });
  const inner = createLabDeviceTools(lab);
  const calls: string[] = [];
  const tools: DeviceTools = { ...WITHOUT_PROVISIONAL,
    execCli: (d, c) => (calls.push(`exec ${d}: ${c}`), inner.execCli(d, c)),
    configCli: (d, c) => (calls.push(`config ${d}: ${c.join(' / ')}`), inner.configCli(d, c)),
  };
  return { clock, lab, tools, calls };
}

describe('runRaw on AD000002 against the lab', () => {
  it('asks for approval with the exact VRF-aware change and applies it only after APPROVED', async () => {
    const { clock, lab, tools, calls } = setup();
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.1.1.2', vrf: 'CUST-A' });
    const requests: ApprovalRequest[] = [];
    const result = await runRaw({
      raw: ad2.raw,
      fs: ad2.fs,
      vars: { device_hostname: 'R1', neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' },
      tools,
      clock,
      approve: async (req) => {
        requests.push(req);
        // Nothing may have been changed before the decision.
        expect(calls.some((c) => c.startsWith('config'))).toBe(false);
        return 'APPROVED';
      },
    });
    expect(requests).toEqual([
      expect.objectContaining({
        step: 'repair_no_shutdown',
        device: 'R1',
        commands: ['router bgp 65001', 'address-family ipv4 vrf CUST-A', 'no neighbor 10.1.1.2 shutdown', 'exit-address-family', 'end'],
        summary: expect.stringContaining('last configured by netops'),
      }),
    ]);
    expect(result.outcome).toBe('resolved');
    expect(result.vars.prefixes_received).toBe('3');
    expect(calls).toContain('exec R1: show bgp vpnv4 unicast vrf CUST-A neighbors 10.1.1.2');
    expect(lab.exec('R1', 'show bgp vpnv4 unicast vrf CUST-A summary')).toMatchObject({ ok: true, output: expect.stringMatching(/^10\.1\.1\.2 .*\s3$/m) });
  });

  it('records every step with its command, output and checks', async () => {
    const { clock, lab, tools } = setup();
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const seen: string[] = [];
    const result = await runRaw({ raw: ad2.raw, vars: { device_hostname: 'R1', neighbor_ip: '10.0.0.2' }, tools, clock, approve: async () => 'DENIED', onStep: (r) => seen.push(r.step) });
    expect(result.outcome).toBe('escalated');
    expect(seen).toEqual(result.path.map((p) => p.step));
    const validate = result.path[1]!;
    expect(validate).toMatchObject({ step: 'validate_neighbor_state', command: 'show ip bgp neighbors 10.0.0.2', result: 'passed', next: 'collect_bgp_config' });
    expect(validate.output).toContain('BGP state = Idle');
    expect(validate.expectations!.every((e) => e.ok)).toBe(true);
    expect(result.path.at(-2)).toMatchObject({ step: 'repair_no_shutdown', approval: 'DENIED', result: 'denied' });
    expect(lab.configChanges()).toBe(0);
    expect(lab.exec('R1', 'show ip bgp summary')).toMatchObject({ output: expect.stringContaining('Idle (Admin)') });
  });

  it('escalates without calling any tool when a required input is missing', async () => {
    const { clock, tools, calls } = setup();
    const result = await runRaw({ raw: ad2.raw, vars: { device_hostname: 'R1' }, tools, clock, approve: async () => 'APPROVED' });
    expect(result).toMatchObject({ outcome: 'escalated', path: [], config_changes: 0 });
    expect(result.summary).toContain('required input neighbor_ip is missing');
    expect(calls).toEqual([]);
  });

  it('treats a tool call that never answers as an error once its timeout passes', async () => {
    const clock = createVirtualClock();
    let called!: () => void;
    const calledOnce = new Promise<void>((r) => (called = r));
    const hanging: DeviceTools = { ...WITHOUT_PROVISIONAL,
      execCli: () => (called(), new Promise<string>(() => {})),
      configCli: () => new Promise<string>(() => {}),
    };
    const run = runRaw({ raw: ad2.raw, vars: { device_hostname: 'R1', neighbor_ip: '10.0.0.2' }, tools: hanging, clock, approve: async () => 'APPROVED' });
    await calledOnce;
    clock.advance(30_000);
    const result = await run;
    expect(result.outcome).toBe('escalated');
    expect(result.path[0]).toMatchObject({ step: 'check_device_reachable', result: 'error', error: expect.stringContaining('timed out after 30 s') });
    expect(result.terminal_step).toBe('escalate_device_unreachable');
  });

  it('polls the revalidation and only then gives up', async () => {
    const { clock, lab, tools, calls } = setup();
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.6' });
    lab.inject({ fault: 'bgp_peer_unreachable', device: 'R1', neighbor: '10.0.0.6' });
    const result = await runRaw({ raw: ad2.raw, vars: { device_hostname: 'R1', neighbor_ip: '10.0.0.6' }, tools, clock, approve: async () => 'APPROVED' });
    expect(result.outcome).toBe('failed');
    expect(result.path.find((p) => p.step === 'revalidate_established')).toMatchObject({ attempts: 6, result: 'failed' });
    expect(calls.filter((c) => c === 'exec R1: show ip bgp neighbors 10.0.0.6')).toHaveLength(7);
  });
});

describe('rawReadOnlyCommands', () => {
  it('renders the show commands strict mode allows, per VRF', () => {
    expect(rawReadOnlyCommands(ad2.raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2' })).toEqual([
      'show version',
      'show ip bgp neighbors 10.0.0.2',
      'show running-config | section router bgp',
      'show logging | include ADJCHANGE|CONFIG_I',
    ]);
    expect(rawReadOnlyCommands(ad2.raw, { device_hostname: 'R1', neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' })).toContain(
      'show bgp vpnv4 unicast vrf CUST-A neighbors 10.1.1.2',
    );
  });

  it('covers every show command of a run, so a strict guard never blocks the RAW itself', async () => {
    const ad3 = await loadArtifactGroup('intelligence-artifacts', 'AD000003');
    const allowed = rawReadOnlyCommands(ad3.raw, { device_hostname: 'R1', interface: 'GigabitEthernet2' });
    expect(allowed).toEqual([
      'show version',
      'show interfaces GigabitEthernet2',
      'show running-config interface GigabitEthernet2',
      'show logging | include LINK-5-CHANGED|CONFIG_I',
    ]);
    const clock = createVirtualClock();
    const lab = createLab({ inventory, clock });
    lab.inject({ fault: 'interface_admin_down', device: 'R1', interface: 'GigabitEthernet2' });
    const result = await runRaw({ raw: ad3.raw, vars: { device_hostname: 'R1', interface: 'GigabitEthernet2' }, tools: createLabDeviceTools(lab), clock, approve: async () => 'APPROVED' });
    expect(result.outcome).toBe('resolved');
    for (const step of result.path) if (step.command) expect(allowed).toContain(step.command);
  });
});
