import { beforeAll, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../harness/raw-tests/clock';
import { loadInventory, parseInventory, type Inventory } from '../../../harness/ios-lab/inventory';
import { createLab, type CliResult, type Lab } from '../../../harness/ios-lab/lab';

let inventory: Inventory;
let lab: Lab;
beforeAll(async () => {
  inventory = await loadInventory();
  lab = createLab({ inventory, clock: createVirtualClock() });
});

const out = (r: CliResult) => {
  if (!r.ok) throw new Error(`expected output, got error: ${r.error}`);
  return r.output;
};
const err = (r: CliResult) => {
  if (r.ok) throw new Error(`expected an error, got: ${r.output}`);
  return r.error;
};

describe('IOS-style exec parsing', () => {
  it('accepts unique abbreviations as IOS does', () => {
    expect(out(lab.exec('R1', 'sh ip bgp sum'))).toBe(out(lab.exec('R1', 'show ip bgp summary')));
    expect(out(lab.exec('r1', 'sh int gi1'))).toMatch(/^GigabitEthernet1 is up, line protocol is up/);
  });

  it('puts the caret under the first character it could not read', () => {
    expect(err(lab.exec('R1', 'show ip bgp neighbours 10.0.0.2'))).toBe(
      ['show ip bgp neighbours 10.0.0.2', '                   ^', "% Invalid input detected at '^' marker."].join('\n'),
    );
    expect(err(lab.exec('R1', 'show interfaces GigabitEthernet9'))).toContain("% Invalid input detected at '^' marker.");
  });

  it('reports ambiguous and incomplete commands', () => {
    expect(err(lab.exec('R1', 'sh i'))).toBe('% Ambiguous command:  "sh i"');
    expect(err(lab.exec('R1', 'show ip bgp'))).toBe('% Incomplete command.');
  });

  it('keeps exec_cli read-only', () => {
    for (const cmd of ['configure terminal', 'clear ip bgp *', 'reload', 'write memory', 'no logging console']) {
      expect(err(lab.exec('R1', cmd))).toMatch(/read-only show commands/);
    }
  });

  it('filters output with include, exclude, begin, section and count', () => {
    expect(out(lab.exec('R1', 'show running-config | section router bgp')).split('\n')[0]).toBe('router bgp 65001');
    expect(out(lab.exec('R1', 'show running-config | sec router bgp'))).not.toContain('hostname R1');
    expect(out(lab.exec('R1', 'show ip interface brief | i Gigabit')).split('\n')).toHaveLength(4);
    expect(out(lab.exec('R1', 'show ip interface brief | exclude Gigabit'))).not.toContain('Gigabit');
    expect(out(lab.exec('R1', 'show running-config | begin router bgp')).split('\n')[0]).toBe('router bgp 65001');
    expect(out(lab.exec('R1', 'show ip interface brief | count up'))).toBe('Number of lines which match regexp = 4');
  });

  it('shows the common commands with IOS-XE layout', () => {
    expect(out(lab.exec('R1', 'show version'))).toMatch(/^Cisco IOS XE Software, Version 17\.09\.04a$/m);
    expect(out(lab.exec('R1', 'show version'))).toMatch(/^R1 uptime is \d+ weeks?, /m);
    const brief = out(lab.exec('R1', 'show ip interface brief')).split('\n');
    expect(brief[0]).toBe('Interface              IP-Address      OK? Method Status                Protocol');
    expect(brief).toContain('GigabitEthernet4       unassigned      YES unset  administratively down down');
    expect(out(lab.exec('R1', 'show vrf'))).toMatch(/^ {2}CUST-A\s+65001:100\s+ipv4\s+Gi3$/m);
    expect(out(lab.exec('R1', 'show running-config interface Gi3'))).toContain(' vrf forwarding CUST-A\n ip address 10.1.1.1 255.255.255.252');
    expect(out(lab.exec('R1', 'show clock'))).toBe('09:00:00.000 UTC Sat Mar 1 2025');
  });

  it('answers BGP show commands per VRF', () => {
    const summary = out(lab.exec('R1', 'show ip bgp summary'));
    expect(summary).toMatch(/^BGP router identifier 10\.255\.0\.1, local AS number 65001$/m);
    expect(summary).toMatch(/^10\.0\.0\.2 {8}4 {8}65002 .* {10}12$/m);
    expect(summary).not.toContain('10.1.1.2');
    expect(out(lab.exec('R1', 'show bgp vpnv4 unicast vrf CUST-A summary'))).toMatch(/^10\.1\.1\.2 .*\s3$/m);
    expect(out(lab.exec('R1', 'show ip bgp vpnv4 vrf CUST-A neighbors 10.1.1.2'))).toMatch(/^BGP neighbor is 10\.1\.1\.2, {2}vrf CUST-A, {2}remote AS 65010, external link$/m);
    expect(out(lab.exec('R1', 'show ip bgp neighbors 10.1.1.2'))).toBe('% No such neighbor or address family');
    expect(out(lab.exec('R1', 'show bgp vpnv4 unicast vrf NOPE summary'))).toBe('% No such vrf NOPE');
  });

  it('errors for devices it does not know, naming the ones it does', () => {
    expect(err(lab.exec('R9', 'show version'))).toBe('% Unknown host "R9": not in the device inventory (known: R1, R2, R3)');
  });
});

describe('inventory', () => {
  it('rejects a neighbor in a VRF the device does not define', () => {
    const text = 'devices:\n  - hostname: X1\n    mgmt_ip: 192.0.2.1\n    interfaces: [{ name: Loopback0, ipv4: 10.0.0.1/32 }]\n    bgp: { as: 1, router_id: 10.0.0.1, neighbors: [{ address: 10.0.0.9, remote_as: 2, vrf: V, remote_router_id: 10.0.0.9 }] }\n';
    expect(() => parseInventory(text, 'inv.yaml')).toThrow('inv.yaml: X1 neighbor 10.0.0.9 uses undefined vrf V');
  });

  it('points at the field that is wrong', () => {
    expect(() => parseInventory('devices:\n  - hostname: X1\n    mgmt_ip: 300.0.0.1\n    interfaces: []\n', 'inv.yaml')).toThrow(/inv\.yaml: devices\.0\.mgmt_ip: must be an IPv4 address/);
  });
});
