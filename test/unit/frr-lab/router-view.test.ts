import { describe, expect, it } from 'vitest';
import { parseBgpSessions, sessionKey, sessionsDown } from '../../../harness/frr-lab/bgp-state';
import { configBlock } from '../../../harness/frr-lab/router-view';
import { splitJsonOutputs } from '../../../harness/frr-lab/settle';
import { planRouters } from '../../../harness/frr-lab/topology';

/** As FRR 8.4's vtysh prints `show bgp vrf all summary json`, `show ip ospf interface json` and `show running-config` asked together. */
const OUTPUT = `{
"default":{
"ipv4Unicast":{ "peers":{ "10.0.0.2":{ "remoteAs":65002, "pfxRcd":2, "state":"Established", "desc":"a } in \\"quotes\\"" } } }
}
,
"CUST-A":{
"ipv4Unicast":{ "peers":{ "10.1.1.2":{ "remoteAs":65002, "state":"Active" } } }
}
}
{
  "interfaces":{ "eth-R2":{ "nbrCount":1, "nbrAdjacentCount":1 } }
}
Building configuration...

interface eth-R2
 ip ospf mtu-ignore
 ip ospf network point-to-point
exit
!
router ospf
 ospf router-id 192.168.255.1
 redistribute static
exit
!
end
`;

describe('what a lab router reports of itself in one vtysh', () => {
  it('splits the JSON answers from the text after them, braces inside strings included', () => {
    const { docs, rest } = splitJsonOutputs(OUTPUT, 2);
    expect((docs[1] as { interfaces: object }).interfaces).toEqual({ 'eth-R2': { nbrCount: 1, nbrAdjacentCount: 1 } });
    expect(rest.trimStart()).toMatch(/^Building configuration/);
    expect(() => splitJsonOutputs('% Unknown command', 1)).toThrow(/0 JSON documents, not 1/);
  });

  it('keys each session by its neighbor, and its VRF outside the global table, and names the ones down', () => {
    const sessions = parseBgpSessions(splitJsonOutputs(OUTPUT, 1).docs[0]);
    expect(sessions.get(sessionKey('10.0.0.2'))).toMatchObject({ state: 'Established', remoteAs: 65002, pfxRcd: 2 });
    expect(sessions.get(sessionKey('10.1.1.2', 'CUST-A'))?.state).toBe('Active');
    const [r1] = planRouters('frl0000', 2);
    expect(sessionsDown(r1!, sessions)).toEqual(['R1→10.1.1.2 (vrf CUST-A) Active']);
  });

  it('reads one block of the running configuration up to its exit', () => {
    expect(configBlock(OUTPUT, 'router ospf')).toEqual([' ospf router-id 192.168.255.1', ' redistribute static']);
    expect(configBlock(OUTPUT, 'interface eth-R2')).toContain(' ip ospf mtu-ignore');
    expect(configBlock(OUTPUT, 'interface eth-R9')).toEqual([]);
  });
});
