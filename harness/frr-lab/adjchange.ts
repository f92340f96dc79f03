/**
 * FRR's BGP neighbour log line (the alert a saved search makes of it is in detectors.ts).
 *   2026/11/23 17:18:10.643259 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Admin. shutdown
 * The router that wrote it is the log's owner; the name in parentheses is the peer's.
 */
export interface AdjChange {
  /** Epoch seconds of the log stamp (the line's own time, not when it was read). */
  time: number;
  neighbor: string;
  peerHost: string;
  vrf: string;
  state: 'Up' | 'Down';
  reason: string;
  raw: string;
}

const LINE = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)? BGP: (?:\[[\w-]+\] )?%ADJCHANGE: neighbor (\S+?)(?:\((\S*)\))? in vrf (\S+) (Up|Down)\s*(.*)$/;

export function parseAdjChange(line: string): AdjChange | undefined {
  const m = LINE.exec(line.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, neighbor, peerHost, vrf, state, reason] = m;
  // FRR writes local time; the lab runs on the host's clock and zone.
  const time = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).getTime() / 1000 + Number(frac ?? 0);
  return { time, neighbor: neighbor!, peerHost: peerHost ?? '', vrf: vrf!, state: state as 'Up' | 'Down', reason: reason!.trim(), raw: line.trim() };
}

/**
 * The saved search "BGP neighbor admin down" (AD000002) matches only an administrative shutdown seen
 * by the router that was shut; the peer's "Notification received" is that router's symptom, not a
 * second fault.
 */
export const isAdminDown = (c: AdjChange) => c.state === 'Down' && /^Admin\. shutdown/.test(c.reason);
