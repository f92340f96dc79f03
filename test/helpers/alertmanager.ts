/** Alertmanager's webhook bodies (version 4) as Alertmanager 0.25 sends them, for the adapter and route tests. */

export const bgpLabels = (over: Record<string, string> = {}) => ({
  alertname: 'BGPNeighborAdminDown',
  instance: 'R1:9342',
  job: 'frr',
  peer: '10.0.0.2',
  vrf: 'default',
  peer_as: '65002',
  severity: 'critical',
  ...over,
});

export function amAlert(opts: { status?: 'firing' | 'resolved'; labels?: Record<string, string>; fingerprint?: string; annotations?: Record<string, string>; endsAt?: string } = {}) {
  const status = opts.status ?? 'firing';
  return {
    status,
    labels: opts.labels ?? bgpLabels(),
    annotations: opts.annotations ?? { summary: 'BGP neighbor 10.0.0.2 on R1 is administratively down' },
    startsAt: '2026-11-21T10:00:00.000Z',
    endsAt: opts.endsAt ?? (status === 'resolved' ? '2026-11-21T10:05:00.000Z' : '0001-01-01T00:00:00Z'),
    generatorURL: 'http://prometheus.example.net:9090/graph?g0.expr=frr_bgp_peer_state+%3D%3D+2',
    fingerprint: opts.fingerprint ?? 'c0ffee0000000001',
  };
}

export function amWebhook(alerts: ReturnType<typeof amAlert>[]) {
  return {
    version: '4',
    groupKey: '{}:{alertname="BGPNeighborAdminDown"}',
    truncatedAlerts: 0,
    status: alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    receiver: 'fault-relay',
    groupLabels: { alertname: 'BGPNeighborAdminDown' },
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example.net:9093',
    alerts,
  };
}
