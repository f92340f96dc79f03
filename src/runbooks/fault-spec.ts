import { z } from 'zod';

/**
 * Faults a lab can inject, as a RAW test case names them. Alert definition ids are accepted as aliases so that
 * `npm run lab -- inject AD000002 …` reproduces exactly the fault that alert describes.
 */
export const FAULT_ALIASES: Record<string, FaultKind> = {
  AD000002: 'bgp_neighbor_admin_down',
  AD000003: 'interface_admin_down',
  AD000004: 'bgp_max_prefix_exceeded',
  AD000007: 'bgp_update_source_missing',
  AD000006: 'bgp_remote_as_mismatch',
  AD000005: 'ospf_interface_passive',
  AD000008: 'ospf_mtu_mismatch',
  AD000009: 'bgp_password_mismatch',
};

const device = z.string().min(1);
const neighbor = z.string().regex(/^(?:\d{1,3}\.){3}\d{1,3}$/, 'must be an IPv4 address');
const vrf = z.string().min(1).optional();

export const faultSpecSchema = z.discriminatedUnion('fault', [
  /** Someone configured `neighbor X shutdown`: the AD000002 fault. */
  z.strictObject({ fault: z.literal('bgp_neighbor_admin_down'), device, neighbor, vrf }),
  /**
   * The neighbor's `maximum-prefix` is set below what the peer advertises: the session is torn down
   * (Cease 6/1) and stays Idle (PfxCt). The AD000004 fault; each lab picks the limit from its own peer.
   */
  z.strictObject({ fault: z.literal('bgp_max_prefix_exceeded'), device, neighbor, vrf }),
  /** `neighbor X update-source IF` names an interface the router does not have: the session stays Active (AD000007). */
  z.strictObject({ fault: z.literal('bgp_update_source_missing'), device, neighbor, vrf }),
  /** `neighbor X remote-as N` names an AS the peer does not have (a typo, a renumbered peer): OPEN rejected 2/2 (AD000006). */
  z.strictObject({ fault: z.literal('bgp_remote_as_mismatch'), device, neighbor, vrf }),
  /**
   * `neighbor X password` set (or changed) on this router only: the TCP MD5 signatures of the two ends
   * disagree, every segment is dropped by the receiving kernel and the session never comes back (AD000009).
   */
  z.strictObject({ fault: z.literal('bgp_password_mismatch'), device, neighbor, vrf }),
  /** The peer stops answering (its side is broken); the session sits in Active. */
  z.strictObject({ fault: z.literal('bgp_peer_unreachable'), device, neighbor, vrf }),
  /** Someone configured `shutdown` on an interface: the AD000003 fault. */
  z.strictObject({ fault: z.literal('interface_admin_down'), device, interface: z.string().min(1) }),
  /** `passive-interface IF` under OSPF: the link stays up, hellos stop, the adjacency is lost (AD000005). */
  z.strictObject({ fault: z.literal('ospf_interface_passive'), device, interface: z.string().min(1) }),
  /**
   * The interface's MTU lowered on this router only (1500 → 1400): OSPF's database description packets
   * from the far end are refused as too large, and the adjacency stays in ExStart (AD000008).
   */
  z.strictObject({ fault: z.literal('ospf_mtu_mismatch'), device, interface: z.string().min(1) }),
  /** Loss of light / cable pulled: link down without any configuration change. */
  z.strictObject({ fault: z.literal('interface_link_down'), device, interface: z.string().min(1) }),
  /** The management plane does not answer; every tool call to the device times out. */
  z.strictObject({ fault: z.literal('device_unreachable'), device }),
]);
export type FaultSpec = z.infer<typeof faultSpecSchema>;
export type FaultKind = FaultSpec['fault'];
export const FAULT_KINDS = faultSpecSchema.options.map((o) => o.shape.fault.value);

/** Accepts `AD000002` as well as `bgp_neighbor_admin_down`. */
export function parseFaultSpec(input: Record<string, unknown>): FaultSpec {
  const fault = typeof input.fault === 'string' ? (FAULT_ALIASES[input.fault.toUpperCase()] ?? input.fault) : input.fault;
  return faultSpecSchema.parse({ ...input, fault });
}
