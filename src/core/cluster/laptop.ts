import { memoryHeldRequests, type HeldRequests } from '../approvals/held-requests';
import { countInIncident } from '../approvals/policy-decide';
import { ownsEverything } from '../incidents/ownership';
import { memoryQuarantine, type QuarantineBackend } from '../quarantine/entry';
import type { Cluster } from './cluster';

/**
 * A relay alone: it owns every incident, the new-incident lock just runs the function, every queued
 * incident is its own to deliver, and a person's action is applied at once by the gate itself (the
 * incident is the record). Held requests and quarantines are kept where it is told (its data folder
 * from start-headless), else in memory.
 */
export function laptopCluster(opts: { relayTag: string; held?: HeldRequests; quarantine?: QuarantineBackend }): Cluster {
  return {
    relayTag: opts.relayTag,
    owns: ownsEverything,
    mayDeliver: () => true,
    claim: async () => true,
    newIncidentLock: (_key, fn) => fn(),
    leading: () => false,
    held: opts.held ?? memoryHeldRequests(),
    quarantine: opts.quarantine ?? memoryQuarantine(),
    onBeat: () => () => undefined,
    join: ({ approvals, confirmLocally }) => ({
      decide: approvals.decide,
      count: countInIncident(approvals.vote),
      confirm: confirmLocally,
      warnings: () => [],
      stop: () => undefined,
    }),
  };
}
