import type { Detection } from './detectors';

/**
 * The two faults whose repair needs both ends (mismatch-faults.ts), in an FRR router's own log.
 *
 * AD000008, OSPF MTU mismatch: ospfd on the end with the smaller MTU refuses the far end's database
 * description at every retransmit (5 s), naming both MTUs (verified on FRR 8.4.4):
 *   2026/11/29 04:36:46.485063 OSPF: [XZZ9Y-NNTMQ][EC 134217741] Packet[DD]: Neighbor 192.168.255.2 MTU 1500 is larger than [eth-R2:10.0.0.1]'s MTU 1400
 * The far end logs nothing. The watcher's throttle posts it once per interface until the adjacency is Full.
 *
 * AD000009, MD5 password on one end only: neither bgpd nor this kernel (6.7 and later only count the
 * dropped segments) logs the digest failure. The last line about the session is the reset the password
 * change causes on the changed router, and then the session is silent:
 *   2026/11/29 04:35:08.693210 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 6/6 (Cease/Other Configuration Change) 0 bytes
 * Any configuration change that resets a session logs that line, but the others are loud afterwards
 * (a wrong remote-as rejects each OPEN, a missing update-source fails each connect) or the session is Up
 * again within a few seconds. So, as a Splunk search with a quiet window would, the candidate is held
 * and posted only when no other BGP line about that neighbor follows on that router within QUIET_MS.
 * Kept out of detectors.ts's per-line DETECTORS: a single line is never this alert on its own.
 */
const STAMP = '^(\\d{4})/(\\d{2})/(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)? ';
const IPV4 = '(?:\\d{1,3}\\.){3}\\d{1,3}';
const IFNAME = '[A-Za-z][A-Za-z-]*\\d+(?:[/.]\\d+)*';
const DD_MTU = new RegExp(`${STAMP}OSPF: (?:\\[[\\w-]+\\])*(?:\\[EC \\d+\\])? ?Packet\\[DD\\]: Neighbor (?<neighbor_id>${IPV4}) MTU (?<neighbor_mtu>\\d+) is larger than \\[(?<interface>${IFNAME}):${IPV4}\\]'s MTU (?<local_mtu>\\d+)$`);
const CEASE_CONFIG = new RegExp(`${STAMP}BGP: (?:\\[[\\w-]+\\] )?%NOTIFICATION: sent to neighbor (?<neighbor_ip>${IPV4}) 6/6 \\(Cease/Other Configuration Change\\)`);
const ADJ_DOWN = new RegExp(`${STAMP}BGP: (?:\\[[\\w-]+\\] )?%ADJCHANGE: neighbor (?<neighbor_ip>${IPV4})\\S* in vrf default Down `);

function stampOf(m: RegExpExecArray): number {
  const [, y, mo, d, h, mi, s, frac] = m;
  // FRR writes local time; the lab runs on the host's clock and zone.
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).getTime() / 1000 + Number(frac ?? 0);
}

/** The saved search "OSPF MTU mismatch": one entry of detectors.ts's DETECTORS. */
export const OSPF_MTU_MISMATCH = {
  alert_def_id: 'AD000008',
  search_name: 'OSPF MTU mismatch',
  detect(line: string): { time: number; fields: Record<string, string> } | undefined {
    const m = DD_MTU.exec(line.trim());
    if (!m) return undefined;
    const g = m.groups!;
    return { time: stampOf(m), fields: { interface: g.interface!, neighbor_id: g.neighbor_id!, neighbor_mtu: g.neighbor_mtu!, local_mtu: g.local_mtu! } };
  },
};

/** How long a session reset by a configuration change must stay silent to be alerted as AD000009. */
export const QUIET_MS = 8_000;

export interface SilentResetSearch {
  /** Every line of `router`'s log, in order. */
  observe(router: string, line: string): void;
  close(): void;
}

/**
 * The saved search "BGP session silent after a configuration change" (AD000009). `emit` gets the
 * detection (the reset line, its time and neighbor) once the quiet window passed without another BGP
 * line about that neighbor on that router; `neighborAs` adds the peering lookup's AS, as for AD000007.
 */
export function silentResetSearch(emit: (router: string, d: Detection) => void, neighborAs: (router: string, neighbor: string) => number | undefined, quietMs = QUIET_MS): SilentResetSearch {
  const held = new Map<string, ReturnType<typeof setTimeout>>();
  const key = (router: string, neighbor: string) => `${router}|${neighbor}`;
  const drop = (k: string) => {
    clearTimeout(held.get(k));
    held.delete(k);
  };
  return {
    observe(router, raw) {
      const line = raw.trim();
      const reset = CEASE_CONFIG.exec(line);
      if (reset) {
        const neighbor = reset.groups!.neighbor_ip!;
        const k = key(router, neighbor);
        drop(k);
        const as = neighborAs(router, neighbor);
        const detection: Detection = { alert_def_id: 'AD000009', search_name: 'BGP session silent after a configuration change', time: stampOf(reset), raw: line, fields: { neighbor_ip: neighbor, ...(as ? { neighbor_as: String(as) } : {}) } };
        held.set(k, setTimeout(() => (held.delete(k), emit(router, detection)), quietMs));
        return;
      }
      // The reset's own "Down BGP Notification send" is part of it; any other BGP line naming the neighbor ends the wait.
      if (!/ BGP: /.test(line) || ADJ_DOWN.test(line)) return;
      for (const k of [...held.keys()]) {
        const [r, neighbor] = k.split('|') as [string, string];
        if (r === router && new RegExp(`(?<![\\d.])${neighbor.replace(/\./g, '\\.')}(?![\\d.])`).test(line)) drop(k);
      }
    },
    close() {
      for (const k of [...held.keys()]) drop(k);
    },
  };
}
