import { resolve } from 'node:path';
import { createSessionLogWriter } from '../core/incidents/session-log';
import { createIncidentHandling } from '../core/incidents/incident-handling';
import { createSecretScrubber } from '../adapters/log/secret-scrubber';
import { setUpAudit } from '../adapters/audit/setup';
import { setUpPaging } from '../adapters/paging/setup';
import { SECRET_KEYS } from '../config/schema';
import { countedIntake } from './counted-intake';
import { createRelayMetrics } from './metrics';
import type { RelayDeps } from './relay-contract';
import type { RelayGate } from './relay-gate';
import type { RelayFoundation, relayDelivery } from './relay-parts';
import { followRuntime } from './runtime-follow';

/** The runtime's event stream mapped onto incidents, and each incident's session log. */
export function relayFollowers(f: RelayFoundation, gate: RelayGate) {
  const { incidents, agent, logger, clock, bus, modelCheck, config } = f;
  const owns = f.cluster.owns;
  const follower = followRuntime({ incidents, agent, logger, clock, owns, bus, modelCheck, onSessionFailed: (id, message) => gate.approvals.tellRoom(id, `❌ **${id}**: the agent session failed: ${message}`) });
  const sessionLog = createSessionLogWriter({ incidents, bus, logDir: resolve(config.RELAY_LOG_DIR), logger, owns });
  sessionLog.backfill(incidents.values());
  return { follower, sessionLog };
}

/**
 * What follows incidents from the side: /metrics, the counted intake, what people do besides deciding,
 * the escalation chain and its pages, and the audit stream (secrets scrubbed), each kept where the cluster keeps its outboxes.
 */
export function relayObservers(f: RelayFoundation, gate: RelayGate, delivery: ReturnType<typeof relayDelivery>, deps: RelayDeps, secrets: { toolsToken: string; terminalSecret: string }) {
  const { config, incidents, bus, clock, logger, store, cluster, operators } = f;
  const owns = cluster.owns;
  const metrics = createRelayMetrics({ bus, incidents, storeHealth: () => store.health(), leading: () => cluster.leading() });
  const counted = countedIntake(delivery.intake, delivery.alertSources, metrics);
  const handling = createIncidentHandling({ incidents, intake: delivery.intake, ...(operators ? { people: operators } : {}) });
  // The escalation chain and the pages follow incidents from one place (src/adapters/paging/), not from each call site.
  const steps = () => gate.policy?.escalation() ?? [];
  const paging = setUpPaging({ config, incidents, bus, clock, logger, owns, remind: gate.approvals.tellRoom, steps, proxy: deps.proxy, openStore: cluster.openOutbox, registry: metrics.registry });
  f.laterWarnings.add(() => paging.warnings());
  const scrubber = createSecretScrubber([...SECRET_KEYS.map((k) => config[k]), secrets.toolsToken, secrets.terminalSecret]);
  const audit = (f.late.audit = setUpAudit({ config, incidents, bus, clock, logger, scrub: scrubber.scrub, ...(deps.proxy ? { proxy: deps.proxy } : {}), owns, host: cluster.host, openStore: cluster.openOutbox, registry: metrics.registry, warningsTo: f.laterWarnings }));
  return { metrics, counted, handling, paging, scrubber, audit };
}
