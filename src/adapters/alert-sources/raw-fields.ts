/**
 * Key fields read from the raw log line, for saved searches that did not `eval` them. Two
 * adjacency-change forms are understood:
 *   Cisco IOS/IOS-XE  `%BGP-5-ADJCHANGE: neighbor 10.0.0.2 vpn vrf CUST-A Down Admin. shutdown`
 *                     `%BGP-5-ADJCHANGE: neighbor 10.0.0.2 Down BGP Notification sent`
 *   FRRouting         `%ADJCHANGE: neighbor 10.0.0.2(R2) in vrf CUST-A Down Admin. shutdown`
 */
export interface RawFields {
  neighbor_ip?: string;
  /** Absent for the global table (Cisco has no `vpn vrf`, FRR says `in vrf default`). */
  vrf_name?: string;
}

const IPV4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}`;
const IPV6 = String.raw`[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*`;
const NEIGHBOR = `(${IPV4}|${IPV6})`;
const CISCO = new RegExp(String.raw`%BGP-\d-ADJCHANGE:\s+neighbor\s+${NEIGHBOR}(?:\s+vpn\s+vrf\s+(\S+))?\s+(?:Up|Down)\b`);
const FRR = new RegExp(String.raw`%ADJCHANGE:\s+neighbor\s+${NEIGHBOR}(?:\([^)]*\))?(?:\s+in\s+vrf\s+(\S+))?\s+(?:Up|Down)\b`);

export function fieldsFromRaw(raw: string | null | undefined): RawFields {
  if (!raw) return {};
  const m = CISCO.exec(raw) ?? FRR.exec(raw);
  if (!m) return {};
  const vrf = m[2];
  return { neighbor_ip: m[1], ...(vrf && vrf !== 'default' ? { vrf_name: vrf } : {}) };
}
