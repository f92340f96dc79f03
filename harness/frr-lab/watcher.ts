import { request } from 'undici';
import { parseAdjChange, type AdjChange } from './adjchange';
import { createAlertThrottle, detectFaults, splunkAlertForDetection, type Detection } from './detectors';
import { silentResetSearch } from './detectors-mismatch';
import { followLines } from './log-follower';
import { OSPF_AREA } from './ospf';
import type { FrrLabRouter } from './lab';
import { errorText } from '../../src/core/error-body';

export interface WatchEvent {
  router: string;
  change: AdjChange;
  /** The relay's answer when the change was posted as an alert. */
  posted?: { status: number; body: unknown };
  error?: string;
}

/** One alert the watcher sent (or tried to), for any alert definition in harness/frr-lab/detectors.ts. */
export interface AlertEvent {
  router: string;
  detection: Detection;
  posted?: { status: number; body: unknown };
  error?: string;
}

export interface WatcherOptions {
  routers: FrrLabRouter[];
  /** The relay's base URL; without it, changes are only reported. */
  relayUrl?: string;
  webhookSecret?: string;
  /** Every BGP adjacency change (Up too), so a demo can show the log and wait for a session to come back. */
  onEvent?: (event: WatchEvent) => void;
  /** Every line that is an alert of a definition the lab detects, with the relay's answer when posted. */
  onAlert?: (event: AlertEvent) => void;
}

/**
 * The FRR lab's Splunk: follows every router's log and, for each line a detector recognises as a fault
 * (detectors.ts: one per alert definition), posts the alert that saved search would send to the relay's
 * webhook. An adjacency line that is an alert (AD000002) also carries the relay's answer in its onEvent.
 */
export function startWatcher(opts: WatcherOptions): { close(): void } {
  const byLog = new Map(opts.routers.map((r) => [r.logFile, r]));
  const throttle = createAlertThrottle();
  const byName = new Map(opts.routers.map((r) => [r.name, r]));
  const peerAs = (router: FrrLabRouter, n: string) => router.links.find((l) => l.peerAddress === n)?.peerAs ?? (router.vrf?.peerAddress === n ? router.vrf.peerAs : undefined);
  // AD000009 is a session silent after a configuration change: posted when the quiet window ends (detectors-mismatch.ts).
  const silent = silentResetSearch(
    (name, detection) => {
      for (const fresh of throttle.admit(name, [detection])) post(byName.get(name)!, fresh);
    },
    (name, n) => peerAs(byName.get(name)!, n),
  );
  const follower = followLines([...byLog.keys()], (file, line) => {
    try {
      silent.observe(byLog.get(file)!.name, line);
      handle(byLog.get(file)!, line);
    } catch (error) {
      // One bad line must not stop the watcher (it would miss every fault after it): say so and go on.
      opts.onEvent?.({ router: byLog.get(file)!.name, change: { time: Date.now() / 1000, neighbor: '', peerHost: '', vrf: '', state: 'Down', reason: '', raw: line }, error: `could not turn the line into an alert: ${errorText(error)}` });
    }
  });
  return {
    close() {
      silent.close();
      follower.close();
    },
  };

  function handle(router: FrrLabRouter, line: string): void {
    const change = parseAdjChange(line);
    const detections = detectFaults(line, {
      peerAs: (n) => peerAs(router, n),
      // Every link of the lab runs OSPF in one area (ospf.ts).
      ospfArea: (ifname) => (router.links.some((l) => l.ifname === ifname) ? OSPF_AREA : undefined),
    });
    const fresh = throttle.admit(router.name, detections, change, line);
    if (change && (fresh.length === 0 || !opts.relayUrl)) opts.onEvent?.({ router: router.name, change });
    for (const detection of fresh) post(router, detection, change);
  }

  function post(router: FrrLabRouter, detection: Detection, change?: AdjChange): void {
    const report = (outcome: { posted?: AlertEvent['posted']; error?: string }) => {
      if (change) opts.onEvent?.({ router: router.name, change, ...outcome });
      opts.onAlert?.({ router: router.name, detection, ...outcome });
    };
    if (!opts.relayUrl) {
      opts.onAlert?.({ router: router.name, detection });
      return;
    }
    request(`${opts.relayUrl}/fault-alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(opts.webhookSecret ? { authorization: `Bearer ${opts.webhookSecret}` } : {}) },
      body: JSON.stringify(splunkAlertForDetection(router.name, detection)),
    })
      .then(async (res) => report({ posted: { status: res.statusCode, body: await res.body.json().catch(() => null) } }))
      .catch((error: unknown) => report({ error: `relay not reachable at ${opts.relayUrl}: ${errorText(error)}` }));
  }
}
