import { describe, expect, it } from 'vitest';
import { findDevice, InventoryError, parseInventory } from '../../../src/adapters/devices/inventory';
import { grammarProblem, PLATFORM } from '../../../src/adapters/devices/platforms';

const device = (extra: string) => `devices:\n  - name: R1\n    host: 192.0.2.1\n    platform: frr\n    username: netops\n${extra}`;
const error = (text: string) => {
  try {
    parseInventory(text, '/etc/fr/devices.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(InventoryError);
    return (e as Error).message;
  }
  throw new Error('expected an InventoryError');
};

describe('device inventory', () => {
  it('resolves files against the inventory and defaults the port and known hosts', () => {
    const inv = parseInventory(device('    credential: {key_file: keys/r1}\n'), '/etc/fr/devices.yaml');
    expect(inv.knownHostsPath).toBe('/etc/fr/known_hosts');
    expect(inv.devices.get('R1')).toMatchObject({ port: 22, credential: { key_file: '/etc/fr/keys/r1' } });
  });

  it('refuses a secret written into the file and says what to use instead', () => {
    expect(error(device('    credential: {password: hunter2}\n'))).toMatch(/credential/);
    expect(error(device('    password: hunter2\n    credential: {agent: true}\n'))).toContain(
      'devices[0]: password: no secret in the inventory; use credential {password_env: NAME} or {key_file: PATH}',
    );
    expect(error(device('    password: hunter2\n    credential: {agent: true}\n'))).not.toContain('hunter2\n');
  });

  it('names every problem on its own line', () => {
    const text = 'devices:\n  - name: R1\n    host: h\n    platform: junos\n    username: u\n    credential: {agent: true}\n  - name: R1\n    host: h\n    platform: frr\n    username: u\n    credential: {password_env: 1BAD}\n';
    const message = error(text);
    expect(message).toContain('devices[0].platform: one of ios, iosxe, nxos, eos, frr');
    expect(message.split('\n').length).toBeGreaterThanOrEqual(3);
  });

  it('refuses duplicate device names', () => {
    const twice = `devices:\n${['R1', 'R1'].map((n) => `  - {name: ${n}, host: h, platform: frr, username: u, credential: {agent: true}}`).join('\n')}\n`;
    expect(error(twice)).toContain('devices[1] "R1" (line 3) is the same device as devices[0] "R1" (line 2)');
  });

  it('refuses names equal ignoring case, naming both entries and their lines (the guard would take them for one device)', () => {
    const text = [
      'known_hosts: ./known_hosts',
      'devices:',
      '  - name: R1',
      '    host: 192.0.2.11',
      '    platform: frr',
      '    username: netops',
      '    credential: {agent: true}',
      '  - name: R2',
      '    host: 192.0.2.12',
      '    platform: frr',
      '    username: netops',
      '    credential: {agent: true}',
      '  - host: 192.0.2.13',
      '    platform: frr',
      '    name: r1',
      '    username: netops',
      '    credential: {agent: true}',
      '  - {name: "r2", host: 192.0.2.14, platform: frr, username: netops, credential: {agent: true}}',
      '',
    ].join('\n');
    expect(error(text)).toBe(
      [
        '/etc/fr/devices.yaml: device names must be unique, ignoring case and surrounding space (the relay\'s guard compares them so):',
        'devices[2] "r1" (line 15) is the same device as devices[0] "R1" (line 3)',
        'devices[3] "r2" (line 18) is the same device as devices[1] "R2" (line 8)',
      ].join('\n'),
    );
  });

  it('finds a device by any case and surrounding space, under its canonical name', () => {
    const inv = parseInventory(device('    credential: {agent: true}\n'), '/etc/fr/devices.yaml');
    expect(findDevice(inv, ' r1 ')?.name).toBe('R1');
    expect(findDevice(inv, 'R1\u212A')).toBeUndefined();
    expect(findDevice(inv, 'R2')).toBeUndefined();
  });

  it('still says where YAML itself is broken', () => {
    expect(error('devices: [\n')).toMatch(/^\/etc\/fr\/devices\.yaml: not YAML: /);
  });
});

describe('platform grammar', () => {
  it('points FRR users at the form that exists', () => {
    expect(grammarProblem(PLATFORM.frr, 'show running-config | section router bgp')).toContain('show running-config bgpd');
    expect(grammarProblem(PLATFORM.frr, 'show ip bgp neighbors 10.0.0.2 | include BGP state|Last reset')).toBeUndefined();
    expect(grammarProblem(PLATFORM.frr, 'show ip bgp vpnv4 vrf CUST-A summary')).toContain('show bgp vrf NAME summary');
    expect(grammarProblem(PLATFORM.iosxe, 'show running-config | section router bgp')).toBeUndefined();
  });
});
