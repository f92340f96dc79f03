import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findPlanDevices } from '../../../src/artifacts/plan-devices';
import { validateArtifactGroupDir } from '../../../src/artifacts/validate';
import { labAddressBook, loadInventory } from '../../../src/lab/inventory';
import { parseInventory } from '../../../src/devices/inventory';

/**
 * A RAW's plan devices: declared by role, found by the relay from an alert value and the inventory's
 * addresses, named by steps and by a repair's plan. The validator says where a declaration is wrong.
 */
let dir: string;
let group: string;
let original: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'artifacts-plan-'));
  group = join(dir, 'AD000002');
  await cp(join('intelligence-artifacts', 'AD000002'), group, { recursive: true });
  original = await readFile(join(group, 'RAW.yaml'), 'utf8');
});
beforeEach(() => writeFile(join(group, 'RAW.yaml'), original));
afterAll(() => rm(dir, { recursive: true, force: true }));

const PEER = "plan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\n";
async function edit(...pairs: Array<[string, string]>): Promise<string> {
  let text = original;
  for (const [from, to] of pairs) {
    expect(text).toContain(from);
    text = text.replace(from, to);
  }
  await writeFile(join(group, 'RAW.yaml'), text);
  return text;
}
const messages = async () => (await validateArtifactGroupDir(group)).issues.map((i) => i.message);
const REPAIR_LINE = "        - 'no neighbor {{neighbor_ip}} shutdown'\n        - '{{#vrf_name}}exit-address-family{{/vrf_name}}'\n        - end\n";

describe('plan devices in a RAW', () => {
  it('accepts a peer found by its address, a plan for it and a step on it', async () => {
    await edit(['steps:\n', `${PEER}steps:\n`], [REPAIR_LINE, `${REPAIR_LINE}    plan:\n      - device: peer\n        commands: ['router bgp 65002', 'no neighbor {{neighbor_ip}} shutdown']\n`]);
    expect(await messages()).toEqual([]);
  });

  it('refuses a lookup over an input of the wrong format, an undeclared role and a role twice in a plan', async () => {
    await edit(
      ['steps:\n', "plan_devices:\n  - { role: peer, description: The BGP peer, find: link_peer, input: neighbor_ip }\n  - { role: peer, description: again, find: address_owner, input: nope }\nsteps:\n"],
      [REPAIR_LINE, `${REPAIR_LINE}    plan:\n      - { device: far_end, commands: ['x {{unknown_var}}'] }\n      - { device: peer, commands: [a] }\n      - { device: peer, commands: [b] }\n`],
    );
    const found = await messages();
    expect(found).toEqual(expect.arrayContaining([
      'find: link_peer reads a value of format interface, but input neighbor_ip is ipv4',
      'plan device role peer is declared twice',
      'plan device peer reads input nope, which the RAW does not declare',
      expect.stringMatching(/^the plan of \S+ names far_end is not a role under plan_devices/),
      expect.stringMatching(/^the plan of \S+ names peer twice/),
      '{{unknown_var}} is neither a RAW input nor captured by any step',
    ]));
  });
});

describe('finding a plan device', () => {
  const decl = (find: 'address_owner' | 'link_peer', input: string) => ({ plan_devices: [{ role: 'r', description: 'd', find, input }] });

  it('finds the BGP peer by its neighbor address and the far end of a link in the simulated lab', async () => {
    const book = labAddressBook(await loadInventory());
    expect(findPlanDevices(decl('address_owner', 'neighbor_ip'), { neighbor_ip: '10.0.0.2' }, 'R1', book)).toEqual([expect.objectContaining({ role: 'r', device: 'R2' })]);
    expect(findPlanDevices(decl('link_peer', 'interface'), { interface: 'GigabitEthernet2' }, 'R1', book)).toEqual([expect.objectContaining({ device: 'R3' })]);
  });

  it("never answers the incident's own device, an ambiguous match or a value out of its format", () => {
    const inv = parseInventory(
      [
        'devices:',
        '  - { name: A, host: a, platform: frr, username: u, credential: { agent: true }, addresses: { eth0: 10.9.0.1/24 } }',
        '  - { name: B, host: b, platform: frr, username: u, credential: { agent: true }, addresses: { eth0: 10.9.0.2/24 } }',
        '  - { name: C, host: c, platform: netconf, username: u, credential: { agent: true }, addresses: { ge0: 10.9.0.3/24 } }',
      ].join('\n'),
      '/tmp/inv.yaml',
    );
    const book = { devices: () => [...inv.devices.values()].map((d) => ({ name: d.name, addresses: d.addresses ?? {} })) };
    expect(findPlanDevices(decl('address_owner', 'n'), { n: '10.9.0.1' }, 'a', book)).toEqual([{ role: 'r', problem: "the inventory device with address 10.9.0.1 (n) is the incident's own device" }]);
    expect(findPlanDevices(decl('link_peer', 'i'), { i: 'eth0' }, 'A', book)).toEqual([{ role: 'r', problem: expect.stringMatching(/^more than one inventory device is the far end of A eth0 .*: B, C$/) }]);
    expect(findPlanDevices(decl('address_owner', 'n'), { n: 'R2; reload' }, 'A', book)).toEqual([{ role: 'r', problem: 'n "R2; reload" is not an IPv4 address' }]);
    expect(findPlanDevices(decl('address_owner', 'n'), {}, 'A', book)).toEqual([{ role: 'r', problem: 'the alert carries no n' }]);
  });
});
