import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { resolveInterfaceName } from './cli-parser';
import { neighborKey, type Device, type Network } from './device';
import { LabError } from './refusal';
import { offeredPrefixes } from './neighbor-faults';
import { injectOspfLargeDatabase, injectOspfMtuMismatch, injectOspfPassive } from './ospf';
import { injectPasswordMismatch } from './password-fault';
import { injectRemoteAsMismatch } from './remote-as-fault';

function findNeighbor(device: Device, address: string, vrf?: string) {
  const all = device.config.bgp?.neighbors ?? [];
  const hits = all.filter((n) => n.address === address && (vrf === undefined || (n.vrf ?? '') === vrf));
  if (hits.length === 0) throw new LabError(`${device.config.hostname} has no BGP neighbor ${address}${vrf ? ` in vrf ${vrf}` : ''}`);
  if (hits.length > 1) throw new LabError(`${device.config.hostname}: neighbor ${address} exists in several VRFs; pass --vrf`);
  return hits[0]!;
}

function interfaceFor(device: Device, name: string) {
  const full = resolveInterfaceName(name, device.config.interfaces.map((i) => i.name));
  if (!full) throw new LabError(`${device.config.hostname} has no interface ${name}`);
  return device.config.interfaces.find((i) => i.name === full)!;
}

/**
 * Puts one fault on a device of the simulated network, as someone or something would on a real one;
 * `changed` records a configuration change (who and when). What happened, in a line.
 */
export function injectFault(net: Network, device: Device, fault: FaultSpec, changed: () => void): string {
  const host = device.config.hostname;
  let what: string;
  switch (fault.fault) {
    case 'bgp_neighbor_admin_down': {
      const n = findNeighbor(device, fault.neighbor, fault.vrf);
      n.shutdown = true;
      changed();
      what = `${host}: neighbor ${n.address}${n.vrf ? ` vrf ${n.vrf}` : ''} administratively shut down`;
      break;
    }
    case 'bgp_max_prefix_exceeded': {
      const n = findNeighbor(device, fault.neighbor, fault.vrf);
      n.maximum_prefix = Math.max(0, offeredPrefixes(device, n) - 1);
      changed();
      what = `${host}: neighbor ${n.address} maximum-prefix ${n.maximum_prefix}, below what the peer advertises`;
      break;
    }
    case 'bgp_update_source_missing': {
      const n = findNeighbor(device, fault.neighbor, fault.vrf);
      n.update_source = 'Loopback9';
      changed();
      what = `${host}: neighbor ${n.address} update-source Loopback9, an interface the router does not have`;
      break;
    }
    case 'bgp_remote_as_mismatch':
      what = injectRemoteAsMismatch(net, device, findNeighbor(device, fault.neighbor, fault.vrf), changed);
      break;
    case 'bgp_peer_unreachable': {
      const n = findNeighbor(device, fault.neighbor, fault.vrf);
      device.faults.peerUnreachable.add(neighborKey(n.address, n.vrf));
      what = `${host}: BGP peer ${n.address}${n.vrf ? ` vrf ${n.vrf}` : ''} stops answering`;
      break;
    }
    case 'interface_admin_down': {
      const i = interfaceFor(device, fault.interface);
      i.shutdown = true;
      changed();
      what = `${host}: interface ${i.name} administratively shut down`;
      break;
    }
    case 'ospf_mtu_mismatch':
      what = injectOspfMtuMismatch(net, device, interfaceFor(device, fault.interface), changed);
      break;
    case 'bgp_password_mismatch':
      what = injectPasswordMismatch(net, device, findNeighbor(device, fault.neighbor, fault.vrf), changed);
      break;
    case 'ospf_large_database':
      what = injectOspfLargeDatabase(net, device);
      break;
    case 'ospf_interface_passive':
      what = injectOspfPassive(net, device, interfaceFor(device, fault.interface), changed);
      break;
    case 'interface_link_down': {
      const i = interfaceFor(device, fault.interface);
      device.faults.linkDown.add(i.name);
      what = `${host}: interface ${i.name} lost its link`;
      break;
    }
    case 'device_unreachable':
      device.faults.unreachable = true;
      what = `${host}: management plane unreachable`;
      break;
  }
  return what;
}
