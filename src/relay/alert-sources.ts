import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { AgentRuntime } from '../core/agent-runtime';
import { createAlertmanagerSource } from '../adapters/alert-sources/alertmanager';
import type { AlertSource, BatchAnswer, SourceBatch } from '../core/incidents/alert-source';
import { createAlertmanagerDefinitions } from '../runbooks/source-mappings';
import type { RelayConfig } from '../config/schema';
import type { Bus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import type { Incidents } from '../core/incidents/service';
import type { Owns } from '../core/incidents/ownership';
import type { Intake } from './intake';
import { recordResolvedAtSource, startResolvedNotices } from './resolved-at-source';

/**
 * A batch of a source's alerts through the relay: firing ones through the one intake (new incident
 * or repeat), resolved ones onto their open incident's timeline, the rest answered as unmatched.
 */
export function createBatchIntake(deps: { intake: Intake; incidents: Incidents; logger: Logger; durable?: () => Promise<void> }) {
  const { intake, incidents, logger } = deps;
  return async function acceptBatch(source: string, batch: SourceBatch): Promise<BatchAnswer> {
    for (const u of batch.unmatched) logger.warn({ source, ref: u.ref, alertname: u.name, status: u.status }, `alert not taken: ${u.reason}`);
    // Side by side, as separate requests would be: a new incident waits for its session, a repeat does not.
    const accepted = await Promise.all(batch.alerts.filter((a) => a.status === 'firing').map(async (a) => ({ ref: a.ref, ...(await intake(a)) })));
    // After the firing ones: a batch that holds both for one fault ends resolved.
    const resolved = batch.alerts
      .filter((a) => a.status === 'resolved')
      .map((a) => {
        const incidentId = recordResolvedAtSource(incidents, source, a);
        if (incidentId) logger.info({ incident_id: incidentId, source, ref: a.ref }, 'alert resolved at source');
        else logger.debug({ source, ref: a.ref, alert_def_id: a.alert_def_id }, 'resolved alert with no open incident');
        return { ref: a.ref, alert_def_id: a.alert_def_id, incident_id: incidentId };
      });
    // Nothing is answered 202 before it is durable (a team relay's database); a failure answers 503 and the sender retries.
    if (deps.durable && resolved.some((r) => r.incident_id !== null)) await deps.durable();
    return { accepted, resolved, unmatched: batch.unmatched };
  };
}
export type BatchIntake = ReturnType<typeof createBatchIntake>;

/** The relay's batch sources (`POST /alerts/<name>`) and what takes their alerts. */
export function createAlertSources(deps: {
  config: RelayConfig;
  intake: Intake;
  incidents: Incidents;
  bus: Bus<RelayEvents>;
  agent: AgentRuntime;
  logger: Logger;
  durable?: () => Promise<void>;
  owns: Owns;
}) {
  const artifactsDir = join(resolve(deps.config.RELAY_PROJECT_DIR), 'intelligence-artifacts');
  const sources: AlertSource[] = [createAlertmanagerSource({ definitions: createAlertmanagerDefinitions(artifactsDir, deps.logger) })];
  const stop = startResolvedNotices({ bus: deps.bus, incidents: deps.incidents, agent: deps.agent, agentName: deps.config.AGENT_NAME, logger: deps.logger, owns: deps.owns });
  const accept = createBatchIntake({ intake: deps.intake, incidents: deps.incidents, logger: deps.logger, ...(deps.durable ? { durable: deps.durable } : {}) });
  return { sources, accept, stop };
}
export type AlertSources = ReturnType<typeof createAlertSources>;
