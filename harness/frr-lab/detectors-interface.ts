/**
 * AD000003 (interface administratively down) in an FRR router's own log. FRR 8.4 logs nothing for
 * `shutdown` at the informational level, so the lab runs zebra with `debug zebra kernel` and its log at
 * debugging (topology.ts): zebra then logs every kernel link update it reads, with the link's flags.
 *   2026/11/27 01:15:48.663635 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x1002
 * The flags' lowest bit is IFF_UP: clear only when the interface was taken down administratively. A lost
 * carrier (the far end gone) keeps IFF_UP and clears IFF_RUNNING (flags 0x1003): not this fault.
 * Verified on FRR 8.4.4 in the lab: `shutdown` logs 0x1002 once; the far end going down logs 0x1003;
 * `no shutdown` logs 0x11003 then 0x11043; the far end toggling while shut logs nothing on this side.
 * Kept apart from detectors.ts (and without importing it) so that module can register this one.
 */

/** The interface format of the FS (`[A-Za-z][A-Za-z-]*\d+…`), so every name alerted on passes the runbook's check. */
const IFNAME = '[A-Za-z][A-Za-z-]*\\d+(?:[/.:]\\d+)*';
const NEWLINK = new RegExp(
  `^(\\d{4})/(\\d{2})/(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)? ZEBRA: (?:\\[[\\w-]+\\] )?RTM_NEWLINK update for (?<interface>${IFNAME})\\(\\d+\\) sl_type \\d+ master \\d+ flags 0x(?<flags>[0-9a-f]+)$`,
);

const IFF_UP = 0x1;

export interface LinkUpdate {
  /** Epoch seconds of the line's own stamp (FRR writes local time; the lab runs on the host's zone). */
  time: number;
  interface: string;
  /** IFF_UP: false only when the interface is administratively down (vtysh `shutdown`, `ip link set down`). */
  adminUp: boolean;
}

/** Zebra's kernel link update line (debug zebra kernel), or undefined for any other line. */
export function parseLinkUpdate(line: string): LinkUpdate | undefined {
  const m = NEWLINK.exec(line.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  const time = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).getTime() / 1000 + Number(frac ?? 0);
  return { time, interface: m.groups!.interface!, adminUp: (parseInt(m.groups!.flags!, 16) & IFF_UP) !== 0 };
}

/** The interface a line says is administratively up again: the end of its AD000003 fault (the watcher's throttle). */
export function interfaceCameUp(line: string): string | undefined {
  const u = parseLinkUpdate(line);
  return u?.adminUp ? u.interface : undefined;
}

/** The saved search "Interface admin down": one entry of detectors.ts's DETECTORS. */
export const INTERFACE_ADMIN_DOWN = {
  alert_def_id: 'AD000003',
  search_name: 'Interface admin down',
  detect(line: string): { time: number; fields: Record<string, string> } | undefined {
    const u = parseLinkUpdate(line);
    if (!u || u.adminUp) return undefined;
    return { time: u.time, fields: { interface: u.interface } };
  },
};
