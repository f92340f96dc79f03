import { savedSearchEnvelope } from '../alert/sample';
/**
 * FRR's BGP neighbour log line, and the Splunk alert a saved search would make of it.
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

export function splunkAlertFor(router: string, change: AdjChange, peerAs?: number) {
  const epoch = Math.floor(change.time);
  const sid = `scheduler__admin__search__RMD5frrlab_at_${epoch}_${router}`;
  return {
    ...savedSearchEnvelope(sid),
    result: {
      alert_def_id: 'AD000002',
      system: router,
      _time: String(epoch),
      neighbor_ip: change.neighbor,
      ...(change.vrf !== 'default' ? { vrf_name: change.vrf } : {}),
      ...(peerAs ? { neighbor_as: String(peerAs) } : {}),
      sourcetype: 'frr:bgp',
      // What the saved search's inventory lookup adds: it selects the runbook's FRR command forms.
      device_platform: 'frr',
      _raw: change.raw,
    },
  };
}
