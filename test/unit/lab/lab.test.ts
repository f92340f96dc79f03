import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../../../harness/raw-tests/clock';
import { loadArtifactGroup, type ArtifactGroup } from '../../../src/runbooks/load';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseFaultSpec } from '../../../src/runbooks/fault-spec';
import { loadInventory, type Inventory } from '../../../harness/ios-lab/inventory';
import { createLab, LabError, type CliResult, type Lab } from '../../../harness/ios-lab/lab';

let inventory: Inventory;
let ad2: ArtifactGroup;
let ad3: ArtifactGroup;
beforeAll(async () => {
  inventory = await loadInventory();
  ad2 = await loadArtifactGroup('intelligence-artifacts', 'AD000002');
  ad3 = await loadArtifactGroup('intelligence-artifacts', 'AD000003');
});

const out = (r: CliResult) => {
  if (!r.ok) throw new Error(`expected output, got error: ${r.error}`);
  return r.output;
};
const state = (lab: Lab, device: string, neighbor: string) => /^\s+BGP state = (\w+)/m.exec(out(lab.exec(device, `show ip bgp neighbors ${neighbor}`)))?.[1];

let clock: VirtualClock;
let lab: Lab;
beforeEach(() => {
  clock = createVirtualClock();
  lab = createLab({ inventory, clock, convergeDelayMs: 4000, linkDelayMs: 2000 });
});

describe('an injected AD000002 fault', () => {
  it('logs exactly the lines the FS detects, with the right variables', () => {
    lab.inject(parseFaultSpec({ fault: 'AD000002', device: 'R1', neighbor: '10.0.0.2' }));
    const lines = out(lab.exec('R1', 'show logging | include BGP')).split('\n');
    const hits = lines.map((l) => extractFromLogLine(ad2.fs, l)).filter(Boolean);
    expect(hits).toEqual([
      { pattern: 'bgp_adjchange_admin_shutdown', vars: { neighbor_ip: '10.0.0.2' } },
      { pattern: 'bgp_session_admin_shutdown', vars: { neighbor_ip: '10.0.0.2' } },
    ]);
    expect(lines).toContain('Mar  1 09:00:00.000 UTC: %BGP-5-ADJCHANGE: neighbor 10.0.0.2 Down Admin. shutdown');
    expect(out(lab.exec('R1', 'show logging'))).toContain('%SYS-5-CONFIG_I: Configured from console by netops on vty0 (192.0.2.50)');
  });

  it('carries the VRF in the log lines for a VRF neighbor', () => {
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.1.1.2' });
    const hits = out(lab.exec('R1', 'show logging | include ADJCHANGE'))
      .split('\n')
      .map((l) => extractFromLogLine(ad2.fs, l)?.vars)
      .filter(Boolean);
    expect(hits).toEqual([
      { neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' },
      { neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' },
    ]);
  });

  it('shows Idle (Admin), "Administratively shut down" and the shutdown line', () => {
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    clock.advance(42_000);
    expect(out(lab.exec('R1', 'show ip bgp summary'))).toMatch(/^10\.0\.0\.2 .* 00:00:42 Idle \(Admin\)$/m);
    const detail = out(lab.exec('R1', 'show ip bgp neighbors 10.0.0.2'));
    expect(detail).toMatch(/^ {2}Administratively shut down$/m);
    expect(detail).toMatch(/^ {2}BGP state = Idle, down for 00:00:42$/m);
    expect(detail).toMatch(/^ {2}Last reset 00:00:42, due to Admin\. shutdown of session 1$/m);
    expect(out(lab.exec('R1', 'show running-config | section router bgp'))).toMatch(/^ neighbor 10\.0\.0\.2 shutdown$/m);
  });

  it('is seen from the peer as a closed session, which the FS does not mistake for this fault', () => {
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const r2 = out(lab.exec('R2', 'show logging | include BGP'));
    expect(r2).toContain('%BGP-3-NOTIFICATION: received from neighbor 10.0.0.1 6/2 (Administrative Shutdown) 0 bytes');
    expect(r2).toContain('%BGP-5-ADJCHANGE: neighbor 10.0.0.1 Down Peer closed the session');
    expect(r2.split('\n').some((l) => extractFromLogLine(ad2.fs, l))).toBe(false);
    expect(state(lab, 'R2', '10.0.0.1')).toBe('Active');
  });
});

describe('repair in configuration mode', () => {
  it('brings the neighbor back only after the convergence delay, on both ends', () => {
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    clock.advance(60_000);
    const r = lab.config('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown']);
    expect(out(r)).toBe(
      ['Enter configuration commands, one per line.  End with CNTL/Z.', 'R1(config)#router bgp 65001', 'R1(config-router)#no neighbor 10.0.0.2 shutdown', 'R1(config-router)#end', 'R1#'].join('\n'),
    );
    expect(state(lab, 'R1', '10.0.0.2')).toBe('Active');
    clock.advance(3999);
    expect(state(lab, 'R1', '10.0.0.2')).toBe('Active');
    clock.advance(1);
    expect(state(lab, 'R1', '10.0.0.2')).toBe('Established');
    expect(state(lab, 'R2', '10.0.0.1')).toBe('Established');
    expect(out(lab.exec('R1', 'show ip bgp summary'))).toMatch(/^10\.0\.0\.2 .* 00:00:00 {7}12$/m);
    expect(out(lab.exec('R1', 'show logging | include 10.0.0.2 Up')).split('\n').at(-1)).toBe('Mar  1 09:01:04.000 UTC: %BGP-5-ADJCHANGE: neighbor 10.0.0.2 Up');
    expect(out(lab.exec('R1', 'show running-config | section router bgp'))).not.toContain('neighbor 10.0.0.2 shutdown');
  });

  it('applies nothing when one line is rejected, and says where', () => {
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.1.1.2' });
    const r = lab.config('R1', ['interface GigabitEthernet4', 'description spare port', 'router bgp 65001', 'no neighbor 10.1.1.2 shutdown']);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain('R1(config-router)#no neighbor 10.1.1.2 shutdown\n% Specify remote-as or peer-group commands first\n% No changes were applied.');
    expect(out(lab.exec('R1', 'show running-config interface Gi4'))).not.toContain('spare port');
    expect(lab.configChanges()).toBe(0);
  });

  it('rejects a wrong AS and invalid input with the caret under the bad word', () => {
    const wrongAs = lab.config('R1', ['router bgp 65002']);
    expect(!wrongAs.ok && wrongAs.error).toContain('% BGP is already running; AS is 65001');
    const typo = lab.config('R1', ['router bgp 65001', 'neighbor 10.0.0.2 shutdwn']);
    expect(!typo.ok && typo.error).toContain(['R1(config-router)#neighbor 10.0.0.2 shutdwn', `${' '.repeat('R1(config-router)#neighbor 10.0.0.2 shutd'.length)}^`, "% Invalid input detected at '^' marker."].join('\n'));
    expect(lab.exec('R9', 'show version').ok).toBe(false);
    expect(lab.config('R9', ['router bgp 1'])).toEqual({ ok: false, kind: 'unknown_device', error: expect.stringContaining('% Unknown host "R9"') });
  });

  it('follows IOS mode changes: a line unknown in a sub-mode is tried in the parent', () => {
    lab.inject({ fault: 'interface_admin_down', device: 'R1', interface: 'Gi2' });
    const r = out(lab.config('R1', ['router bgp 65001', 'bgp log-neighbor-changes', 'interface GigabitEthernet2', 'no shutdown', 'end']));
    expect(r).toContain('R1(config-router)#interface GigabitEthernet2\nR1(config-if)#no shutdown\nR1(config-if)#end\nR1#');
  });
});

describe('interfaces and the sessions over them', () => {
  it('an AD000003 shutdown takes the BGP session over the link down; no shutdown restores both, in order', () => {
    lab.inject(parseFaultSpec({ fault: 'AD000003', device: 'R1', interface: 'GigabitEthernet2' }));
    const log = out(lab.exec('R1', 'show logging')).split('\n');
    expect(log.map((l) => extractFromLogLine(ad3.fs, l)?.vars).filter(Boolean)).toEqual([{ interface: 'GigabitEthernet2' }]);
    expect(out(lab.exec('R1', 'show interfaces GigabitEthernet2')).split('\n')[0]).toBe('GigabitEthernet2 is administratively down, line protocol is down ');
    expect(log.some((l) => l.endsWith('%BGP-5-ADJCHANGE: neighbor 10.0.0.6 Down Interface flap'))).toBe(true);

    out(lab.config('R1', ['interface GigabitEthernet2', 'no shutdown']));
    expect(out(lab.exec('R1', 'show ip interface brief | include GigabitEthernet2'))).toMatch(/ down {18}down$/);
    clock.advance(2000);
    expect(out(lab.exec('R1', 'show ip interface brief | include GigabitEthernet2'))).toMatch(/ up {20}up$/);
    expect(state(lab, 'R1', '10.0.0.6')).toBe('Active');
    clock.advance(4000);
    expect(state(lab, 'R1', '10.0.0.6')).toBe('Established');
  });

  it('a lost link is "down", not "administratively down", and is not the AD000003 fault', () => {
    lab.inject({ fault: 'interface_link_down', device: 'R1', interface: 'GigabitEthernet2' });
    expect(out(lab.exec('R1', 'show interfaces Gi2')).split('\n')[0]).toBe('GigabitEthernet2 is down, line protocol is down ');
    expect(out(lab.exec('R1', 'show logging')).split('\n').some((l) => extractFromLogLine(ad3.fs, l))).toBe(false);
  });
});

describe('fault control', () => {
  it('an unreachable device times out every call until the fault is cleared', () => {
    lab.inject({ fault: 'device_unreachable', device: 'R1' });
    expect(lab.exec('R1', 'show version')).toEqual({ ok: false, kind: 'unreachable', error: '% Connection timed out; remote host not responding: R1 (192.0.2.11) port 22' });
    lab.clearFaults('R1');
    expect(lab.exec('R1', 'show version').ok).toBe(true);
  });

  it('refuses faults that name things the lab does not have', () => {
    expect(() => lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.9.9.9' })).toThrow(LabError);
    expect(() => lab.inject({ fault: 'interface_admin_down', device: 'R7', interface: 'Gi1' })).toThrow(/unknown device "R7"/);
    expect(() => parseFaultSpec({ fault: 'AD000002', device: 'R1' })).toThrow(/neighbor/);
  });

  it('reset returns to the inventory', () => {
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    out(lab.config('R1', ['interface Gi4', 'description x']));
    lab.reset();
    expect(state(lab, 'R1', '10.0.0.2')).toBe('Established');
    expect(lab.configChanges()).toBe(0);
  });
});
