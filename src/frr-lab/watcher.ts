import { request } from 'undici';
import { isAdminDown, parseAdjChange, splunkAlertFor, type AdjChange } from './adjchange';
import { followLines } from './log-follower';
import type { FrrLabRouter } from './lab';

export interface WatchEvent {
  router: string;
  change: AdjChange;
  /** The relay's answer when the change was posted as an alert. */
  posted?: { status: number; body: unknown };
  error?: string;
}

export interface WatcherOptions {
  routers: FrrLabRouter[];
  /** The relay's base URL; without it, changes are only reported. */
  relayUrl?: string;
  webhookSecret?: string;
  onEvent?: (event: WatchEvent) => void;
}

/**
 * The FRR lab's Splunk: follows every router's log, and for each administrative BGP shutdown posts
 * the alert the saved search would send to the relay's webhook. Every adjacency change (Up too) is
 * reported to `onEvent`, so a demo can show the log and wait for the session to come back.
 */
export function startWatcher(opts: WatcherOptions): { close(): void } {
  const byLog = new Map(opts.routers.map((r) => [r.logFile, r]));
  return followLines([...byLog.keys()], (file, line) => {
    try {
      handle(byLog.get(file)!, line);
    } catch (error) {
      // One bad line must not stop the watcher (it would miss every fault after it): say so and go on.
      opts.onEvent?.({ router: byLog.get(file)!.name, change: { time: Date.now() / 1000, neighbor: '', peerHost: '', vrf: '', state: 'Down', reason: '', raw: line }, error: `could not turn the line into an alert: ${(error as Error).message}` });
    }
  });

  function handle(router: FrrLabRouter, line: string): void {
    const change = parseAdjChange(line);
    if (!change) return;
    const event: WatchEvent = { router: router.name, change };
    if (!isAdminDown(change) || !opts.relayUrl) return opts.onEvent?.(event);
    const peerAs = router.links.find((l) => l.peerAddress === change.neighbor)?.peerAs;
    request(`${opts.relayUrl}/fault-alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(opts.webhookSecret ? { authorization: `Bearer ${opts.webhookSecret}` } : {}) },
      body: JSON.stringify(splunkAlertFor(router.name, change, peerAs)),
    })
      .then(async (res) => opts.onEvent?.({ ...event, posted: { status: res.statusCode, body: await res.body.json().catch(() => null) } }))
      .catch((error: Error) => opts.onEvent?.({ ...event, error: `relay not reachable at ${opts.relayUrl}: ${error.message}` }));
  }
}
