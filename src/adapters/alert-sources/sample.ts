/** A Splunk webhook alert as the saved search `BGP neighbor admin down` sends it. */
export interface SampleAlertInput {
  alertDefId?: string;
  device?: string;
  neighbor?: string;
  vrf?: string;
  neighborAs?: string;
  deviceIp?: string;
  kbQueryMode?: 'quick' | 'standard' | 'deep';
  now?: Date;
}

/** What Splunk puts around every result of the saved search "BGP neighbor admin down". */
export function savedSearchEnvelope(sid: string) {
  return {
    sid,
    search_name: 'BGP neighbor admin down',
    app: 'search',
    owner: 'admin',
    results_link: `https://splunk.example.net:8000/app/search/search?q=%7Cloadjob%20${sid}`,
  };
}

export function buildSplunkAlert(input: SampleAlertInput = {}) {
  const now = input.now ?? new Date();
  const device = input.device ?? 'R1';
  const neighbor = input.neighbor ?? '10.0.0.2';
  const epoch = Math.floor(now.getTime() / 1000);
  const stamp = now.toUTCString().slice(5, 25); // "21 Nov 2026 10:00:00"
  const sid = `scheduler__admin__search__RMD5bgp_at_${epoch}_${Math.floor(now.getMilliseconds())}`;
  return {
    ...savedSearchEnvelope(sid),
    ...(input.kbQueryMode ? { kb_query_mode: input.kbQueryMode } : {}),
    result: {
      alert_def_id: input.alertDefId ?? 'AD000002',
      system: device,
      _time: String(epoch),
      device_ip: input.deviceIp ?? '192.0.2.11',
      neighbor_ip: neighbor,
      // Absent means the global table, as IOS-XE has no VRF named "default".
      ...(input.vrf ? { vrf_name: input.vrf } : {}),
      neighbor_as: input.neighborAs ?? '65002',
      _raw: `${stamp} ${device} %BGP-5-ADJCHANGE: neighbor ${neighbor} Down Admin. shutdown`,
    },
  };
}
