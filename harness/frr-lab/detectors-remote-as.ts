/**
 * AD000006 (BGP session down: the configured remote-as is not the peer's AS) in an FRR router's own log.
 * With `bgp log-neighbor-changes` FRR 8.4 logs at info, on every OPEN it rejects (each connect retry):
 *   2026/11/27 01:36:34.960024 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes f
 * Once the session has negotiated graceful restart's notification bit the line reads
 * "%NOTIFICATION(Hard Reset): sent to neighbor …" (RFC 8538), the same rejection.
 * The data should be the AS the peer announced (fd ea); FRR 8.4.4 logs only its first hex digit on the
 * sending side (verified in the lab, R1 `neighbor 10.0.0.2 remote-as 65020` while R2 is AS 65002), so
 * the AS comes from the search's peering lookup (the lab's topology, ctx.peerAs), as AD000004's
 * neighbor_as does. The peer logs "received from … 2 bytes fd ea": its symptom, not a second fault.
 * Kept apart from detectors.ts (and without importing it) so that module can register this one.
 */
const NOTIFICATION = new RegExp(
  '^(\\d{4})/(\\d{2})/(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)? BGP: (?:\\[[\\w-]+\\] )?%NOTIFICATION(?:\\(Hard Reset\\))?: sent to neighbor (?<neighbor_ip>(?:\\d{1,3}\\.){3}\\d{1,3}) 2/2 \\(OPEN Message Error/Bad Peer AS\\) [24] bytes\\b',
);

/** The saved search "BGP peer in wrong AS": one entry of detectors.ts's DETECTORS. */
export const REMOTE_AS_MISMATCH = {
  alert_def_id: 'AD000006',
  search_name: 'BGP peer in wrong AS',
  detect(line: string, ctx: { peerAs?: (neighbor: string) => number | undefined }): { time: number; fields: Record<string, string> } | undefined {
    const m = NOTIFICATION.exec(line.trim());
    if (!m) return undefined;
    const [, y, mo, d, h, mi, s, frac] = m;
    // FRR writes local time; the lab runs on the host's clock and zone.
    const time = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).getTime() / 1000 + Number(frac ?? 0);
    const neighbor_ip = m.groups!.neighbor_ip!;
    const as = ctx.peerAs?.(neighbor_ip);
    return { time, fields: { neighbor_ip, ...(as ? { peer_as: String(as) } : {}) } };
  },
};
