import { join, resolve } from 'node:path';
import { openOperatorsFile, type OperatorDirectory } from '../core/operators/operators';
import { withOperator } from './sign-in';
import { startOwnDeviceServer } from './own-device-server';
import { systemClock } from '../core/clock';
import { createDispatcher } from '../core/delivery/dispatcher';
import { createSpareSession } from '../core/delivery/spare-session';
import { createBus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import { createIncidents } from '../core/incidents/service';
import { incidentTracer } from '../adapters/telemetry/incident-trace';
import { createSeverityLookup } from '../runbooks/severity';
import { createModelCheck } from '../core/delivery/model-check';
import { createRunGate } from './run-gate';
import { createPresence } from './presence';
import { createIntake, type IntakeOptions } from './intake';
import { createAlertSources } from './alert-sources';
import { auditedOperatorsLog, type RelayAudit } from '../adapters/audit/setup';
import type { RelayDeps } from './relay-contract';

/**
 * What everything else in the relay stands on: its settings, clock, bus, incidents, the on-call
 * team from OPERATORS_FILE, the model check and the device server it may run itself.
 */
export async function relayFoundation(deps: RelayDeps) {
  const { config, store, agent, logger, cluster } = deps;
  const late: { audit?: RelayAudit } = {}; // the audit stream, made once metrics exist: reloads before then are the start itself
  const operators = openOperators(deps, () => late.audit);
  // With DEVICE_INVENTORY (and no DEVICE_MCP_URL) the relay runs the SSH device tool server itself, on loopback.
  const deviceServer = deps.deviceTools ? undefined : await startOwnDeviceServer({ config, logger, launch: deps.deviceServerLaunch, env: deps.deviceServerEnv });
  const clock = deps.clock ?? systemClock;
  const laterWarnings = new Set<() => string[]>();
  if (deviceServer) laterWarnings.add(() => deviceServer.warnings());
  const bus = deps.bus ?? createBus<RelayEvents>((error, type) => logger.error({ err: error, event: type }, 'event handler failed'));
  const artifactsDir = join(resolve(config.RELAY_PROJECT_DIR), 'intelligence-artifacts');
  const incidents = createIncidents({ store, bus, clock, logger, severityFor: createSeverityLookup(artifactsDir), tracer: incidentTracer });
  const modelCheck = createModelCheck({ agent, agentName: config.AGENT_NAME, clock });
  return {
    ...{ config, store, agent, logger, cluster, late, operators, deviceServer, clock, laterWarnings, bus, incidents, modelCheck, artifactsDir },
    runGate: createRunGate({ modelCheck }),
    presence: createPresence(),
    // Its URL stays out of the configuration (the /ui settings view shows that): the guard's client and /health/deep get it directly.
    deviceMcpUrl: deviceServer?.endpoint().mcpUrl ?? config.DEVICE_MCP_URL,
    ...(store.writesBehind ? { durable: () => store.flush() } : {}),
  };
}
export type RelayFoundation = Awaited<ReturnType<typeof relayFoundation>>;

/** Read at start: a broken operators file stops the relay with one line per problem, not at the first decision. */
function openOperators(deps: RelayDeps, audit: () => RelayAudit | undefined): OperatorDirectory | undefined {
  const file = deps.config.OPERATORS_FILE;
  const listed = file ? openOperatorsFile(resolve(file), auditedOperatorsLog(deps.logger, file, audit)) : undefined;
  // With the laptop's local operator one of the team: an approver who signs in to /ui with a one-time link.
  return deps.signIn ? withOperator(listed, deps.signIn.operator) : listed;
}

/** How alerts come in and reach the runtime: intake, the alert sources and the dispatcher, each asking the cluster. */
export function relayDelivery(f: RelayFoundation, deps: RelayDeps, planDevicesFor: NonNullable<IntakeOptions['planDevicesFor']>) {
  const { config, incidents, agent, modelCheck, clock, logger, cluster } = f;
  const dispatcher = createDispatcher({
    incidents,
    agent,
    modelCheck,
    agentName: config.AGENT_NAME,
    maxActiveRuns: config.MAX_ACTIVE_RUNS,
    retryMaxMs: config.DELIVERY_RETRY_MAX_MS,
    retryBaseMs: deps.retryBaseMs,
    clock,
    logger,
    mayDeliver: cluster.mayDeliver,
    claim: cluster.claim,
    ...(config.AGENT_SPARE_SESSION === 'on' ? { spare: createSpareSession({ agent, relayTag: cluster.relayTag, logger }) } : {}),
  });
  const intake = createIntake({
    incidents,
    dispatcher,
    mode: config.REMEDIATION_MODE,
    clock,
    logger,
    deliveryWaitMs: deps.deliveryWaitMs,
    ...(f.durable ? { durable: f.durable } : {}),
    newIncidentLock: cluster.newIncidentLock,
    planDevicesFor,
  });
  const alertSources = createAlertSources({ config, intake, incidents, bus: f.bus, agent, logger, ...(f.durable ? { durable: f.durable } : {}), owns: cluster.owns });
  return { dispatcher, intake, alertSources };
}
