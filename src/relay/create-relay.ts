import { openOperatorsFile } from '../core/operators/operators';
import { withOperator } from './sign-in';
import { namedDecide } from '../core/approvals/named-decide';
import { createRunProgress } from '../adapters/agent-tools/run-progress';
import { createSeverityLookup } from '../runbooks/severity';
import { startOwnDeviceServer } from './own-device-server';
import { randomBytes } from 'node:crypto';
import { createApprovals, type DecideFn } from '../core/approvals/approvals';
import { createChannelHost } from '../core/approvals/channel-host';
import { createWebexChannel } from '../adapters/channels/webex/webex-channel';
import { createRelayToolsServer } from '../adapters/agent-tools/relay-tools';
import { setUpConfirmedApply } from '../core/changes/confirmed-apply-setup';
import { createTeamConfirms } from '../adapters/team/confirms';
import { createDeviceGuardServer } from '../adapters/device-tools/device-guard';
import { inventoryAddressBook } from '../adapters/devices/inventory-lookup';
import { createMcpDeviceTools } from '../adapters/device-tools/mcp-device-tools';
import { createStrictAllowList } from '../adapters/device-tools/strict-allow-list';
import { join, resolve } from 'node:path';
import { followRuntime } from './runtime-follow';
import { createSessionLogWriter } from '../core/incidents/session-log';
import { eventsRoutes } from './routes/events';
import { systemClock } from '../core/clock';
import { createDispatcher } from '../core/delivery/dispatcher';
import { createSpareSession, localRelayTag } from '../core/delivery/spare-session';
import { createBus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import { isTerminal, type Incident } from '../core/incidents/model';
import { createIncidents } from '../core/incidents/service';
import { buildApp } from './app';
import { createRelayMetrics } from './metrics';
import { createSecretScrubber } from '../adapters/log/secret-scrubber';
import { SECRET_KEYS } from '../config/schema';
import { httpDeviceProbe, messagingHealth } from './health-checks';
import { createIntake } from './intake';
import { createAlertSources } from './alert-sources';
import { createModelCheck } from '../core/delivery/model-check';
import { createRunGate } from './run-gate';
import { openQuarantine } from './open-quarantine';
import { pgHeldRequests } from '../adapters/store-pg/held-repository';
import { openConfiguredPolicy } from './policy-setup';
import { countedIntake } from './counted-intake';
import { createIncidentHandling } from '../core/incidents/incident-handling';
import { runBlockers, standingWarnings, storeWarnings } from './standing-warnings';
import { createHeadedIntake } from './headed-intake';
import { terminalQuestion } from '../core/approvals/terminal-question';
import { createPresence } from './presence';
import { evidenceOf } from '../core/approvals/evidence';
import { followTeam } from '../adapters/team/follow-team';
import { createTeamDecisions } from '../adapters/team/decisions';
import { createTeamVotes } from '../adapters/team/votes';
import { countInIncident, policyDecide } from '../core/approvals/policy-decide';
import { createForgedRows } from '../adapters/team/forged-rows';
import { ownsEverything, type Owns } from '../core/incidents/ownership';
import { auditedOperatorsLog, setUpAudit, type RelayAudit } from '../adapters/audit/setup';
import { traceApprovalWaits } from '../adapters/telemetry/incident-events';
import { incidentTracer } from '../adapters/telemetry/incident-trace';
import { traceChannelDecisions } from '../adapters/telemetry/traced-decisions';
import { setUpPaging } from '../adapters/paging/setup';
export type { Relay, RelayDeps } from './relay-contract';
import type { Relay, RelayDeps } from './relay-contract';

/** The one factory both the tray and the headless relay call. */
export async function createRelay(deps: RelayDeps): Promise<Relay> {
  const { store, agent, logger } = deps;
  // Read at start: a broken operators file stops the relay with one line per problem, not at the first decision.
  const late: { audit?: RelayAudit } = {}; // the audit stream, made once metrics exist: reloads before then are the start itself
  const listed = deps.config.OPERATORS_FILE ? openOperatorsFile(resolve(deps.config.OPERATORS_FILE), auditedOperatorsLog(logger, deps.config.OPERATORS_FILE, () => late.audit)) : undefined;
  // With the laptop's local operator one of the team: an approver who signs in to /ui with a one-time link.
  const operators = deps.signIn ? withOperator(listed, deps.signIn.operator) : listed;
  // With DEVICE_INVENTORY (and no DEVICE_MCP_URL) the relay runs the SSH device tool server itself, on loopback.
  const deviceServer = deps.deviceTools ? undefined : await startOwnDeviceServer({ config: deps.config, logger, launch: deps.deviceServerLaunch, env: deps.deviceServerEnv });
  // Its URL stays out of the configuration (the /ui settings view shows that): the guard's client and /health/deep get it directly.
  const config = deps.config;
  const deviceMcpUrl = deviceServer?.endpoint().mcpUrl ?? config.DEVICE_MCP_URL;
  const clock = deps.clock ?? systemClock;
  const presence = createPresence();
  // One owner per incident: everything below that acts on an incident asks (a laptop relay owns all).
  const team = deps.team;
  const owns: Owns = team ? (id) => team.owns(id) : ownsEverything;
  const laterWarnings = new Set<() => string[]>();
  if (deviceServer) laterWarnings.add(() => deviceServer.warnings());
  const bus = deps.bus ?? createBus<RelayEvents>((error, type) => logger.error({ err: error, event: type }, 'event handler failed'));
  const incidents = createIncidents({ store, bus, clock, logger, severityFor: createSeverityLookup(join(resolve(config.RELAY_PROJECT_DIR), 'intelligence-artifacts')), tracer: incidentTracer });
  const modelCheck = createModelCheck({ agent, agentName: config.AGENT_NAME, clock });
  const runGate = createRunGate({ modelCheck });
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
    ...(deps.team ? { mayDeliver: deps.team.mayDeliver, claim: deps.team.claim } : {}),
    ...(config.AGENT_SPARE_SESSION === 'on' ? { spare: createSpareSession({ agent, relayTag: deps.team?.relayId ?? localRelayTag(config.RELAY_DATA_DIR), logger }) } : {}),
  });
  const offTeam = deps.team ? followTeam({ team: deps.team, incidents, dispatcher, clock, agent, logger }) : () => {};
  const intake = createIntake({
    incidents,
    dispatcher,
    mode: config.REMEDIATION_MODE,
    clock,
    logger,
    deliveryWaitMs: deps.deliveryWaitMs,
    ...(store.writesBehind ? { durable: () => store.flush() } : {}),
    ...(deps.team ? { newIncidentLock: deps.team.newIncidentLock } : {}),
    planDevicesFor: async (alert) => confirmed?.planDevicesFor(alert) ?? [],
  });
  const alertSources = createAlertSources({ config, intake, incidents, bus, agent, logger, ...(store.writesBehind ? { durable: () => store.flush() } : {}), ...(deps.team ? { owns: deps.team.owns } : {}) });
  // The relay writes into a headed run's terminal session itself: what the operator reads there is the
  // relay's record (lines, device, hash, request id), never the model's retelling of it.
  const tellTerminal = async (incident: Incident, text: string) => {
    if (!incident.session_id) throw new Error('no terminal session is bound to this incident');
    await agent.promptAsync(incident.session_id, { agent: config.AGENT_NAME, text, noReply: true });
  };
  // The operator channels: Webex when the bot (or a test's room) is given, then any others (Slack).
  const webex = deps.room ? createWebexChannel({ room: deps.room, roomId: config.MSG_ROOM_ID, approvers: config.MSG_APPROVERS, logger }) : undefined;
  const channels = [...(webex ? [webex] : []), ...(deps.channels ?? [])];
  // Each channel with a socket says how it stands, through the port; a team follower stands by.
  const messaging = deps.messaging ?? (() => messagingHealth(channels, deps.standby?.() ?? false));
  const policy = openConfiguredPolicy(config, logger, (c) => late.audit?.configChanged('policy', c));
  if (policy) laterWarnings.add(() => policy.warnings());
  // Devices whose change could not be put back: no card and no configuration until a person clears them.
  const quarantine = await openQuarantine({ incidents, clock, logger, tell: (id, md) => approvals.tellRoom(id, md), ...(deps.quarantine ? { backend: deps.quarantine } : {}), ...(team ? { team } : {}) });
  const approvals = createApprovals({
    ...(policy ? { policy } : {}),
    quarantined: quarantine.check,
    ...(deps.held ? { held: deps.held } : team ? { held: pgHeldRequests(team.pool) } : {}),
    incidents,
    agent,
    bus,
    applyWindowMs: config.APPROVAL_APPLY_WINDOW ?? config.APPROVAL_TTL,
    showInTerminal: (incident) => tellTerminal(incident, terminalQuestion(incident, evidenceOf(incidents.timeline(incident.incident_id)))),
    channels,
    // Approvers in OPERATORS_FILE decide over the API and from their trays: a live channel, never unattended.
    extraChannels: () => [...(operators && operators.approvers() > 0 ? ['api'] : []), ...(deps.extraChannels?.() ?? [])],
    ...(operators ? { approversOnline: () => presence.approvers(), approversIn: (groups: readonly string[]) => operators.approversIn?.(groups) ?? 0 } : {}),
    ttlMs: config.APPROVAL_TTL,
    owns,
    whenUnattended: config.APPROVAL_WHEN_UNATTENDED,
    agentName: config.AGENT_NAME,
    clock,
    logger,
  });
  const startHeaded = createHeadedIntake({ incidents, mode: config.REMEDIATION_MODE, logger });
  const toolsToken = deps.toolsToken ?? config.RELAY_TOOLS_TOKEN ?? randomBytes(24).toString('base64url');
  // The terminal's decision credential: in the relay's data folder for npm run headed, never in the runtime's environment.
  const terminalSecret = deps.terminalSecret ?? randomBytes(32).toString('base64url');
  // A team relay's human decisions go through the database (first wins, the owner applies).
  // Rows in the team database that fail their MAC: never applied, said once on the timeline and standing on /health.
  const forged = deps.team ? createForgedRows({ incidents, logger }) : undefined;
  if (forged) laterWarnings.add(() => forged.warnings());
  const teamVotes = deps.team && forged ? createTeamVotes({ team: deps.team, approvals, incidents, forged, logger }) : undefined;
  const teamDecisions = deps.team && forged ? createTeamDecisions({ team: deps.team, approvals, incidents, forged, logger, ...(teamVotes ? { syncVotes: teamVotes.sync } : {}) }) : undefined;
  // A listed person is recorded by their OPERATORS_FILE name on any channel; under a policy requirement only its groups count, each person once (in the team database on a team).
  const decide: DecideFn = namedDecide(policyDecide({ decide: teamDecisions ? teamDecisions.decide : approvals.decide, count: teamVotes?.count ?? countInIncident(approvals.vote), incidents, clock }), operators);
  // Every channel hands its people's decisions to the one `decide` above.
  const host = traceChannelDecisions(createChannelHost({ approvals, decide, incidents, channels, logger }), (id) => incidents.get(id));
  for (const channel of channels) channel.attach(host);
  const onCardSubmission = webex ? webex.onCardSubmission : async () => logger.warn('card submission ignored: no operator room configured');
  const follower = followRuntime({ incidents, agent, logger, clock, owns, bus, modelCheck, onSessionFailed: (id, message) => approvals.tellRoom(id, `❌ **${id}**: the agent session failed: ${message}`) });
  const sessionLog = createSessionLogWriter({ incidents, bus, logDir: resolve(config.RELAY_LOG_DIR), logger, owns });
  sessionLog.backfill(incidents.values());
  // The device server's bearer (generated in memory, or DEVICE_MCP_TOKEN) goes to this client only.
  const ownDeviceTools = deps.deviceTools || !deviceMcpUrl ? undefined : deviceServer ? createMcpDeviceTools(() => { const e = deviceServer.endpoint(); return { url: e.mcpUrl, token: e.token }; }) : createMcpDeviceTools(deviceMcpUrl, { token: config.DEVICE_MCP_TOKEN });
  // A detached server started again answers at a new address with a new token: the next call connects there.
  if (deviceServer && ownDeviceTools) deviceServer.onReplaced(() => void ownDeviceTools.close());
  const deviceTools = deps.deviceTools ?? ownDeviceTools;
  const runProgress = createRunProgress({ incidents, artifactsDir: join(resolve(config.RELAY_PROJECT_DIR), 'intelligence-artifacts'), logger, now: () => clock.now() });
  // Every change goes on provisionally: confirmed by the RAW's post-check or a person, else put back.
  const confirmed = deviceTools
    ? setUpConfirmedApply({ incidents, upstream: deviceTools, artifactsDir: join(resolve(config.RELAY_PROJECT_DIR), 'intelligence-artifacts'), defaultWithinS: config.CONFIRM_WITHIN_S, clock, logger, owns, tell: approvals.tellRoom, ended: quarantine.afterChange, unlearned: quarantine.unlearned, ...(deps.postCheckPaceS !== undefined ? { maxPaceS: deps.postCheckPaceS } : {}), addressBook: deps.addressBook ?? (config.DEVICE_INVENTORY ? inventoryAddressBook(config.DEVICE_INVENTORY) : undefined) })
    : undefined;
  // On a team a confirm, like a decision, is recorded first and applied by the incident's owner.
  const teamConfirms = deps.team && forged ? createTeamConfirms({ team: deps.team, incidents, logger, forged, confirmLocally: confirmed?.confirmByPerson ?? (async (id) => ({ ok: false, code: 'no_change', message: `${id} has no change this relay applied` })) }) : undefined;
  const confirmChange = teamConfirms?.confirm ?? confirmed?.confirmByPerson;
  const strictAllowList = createStrictAllowList({ incidents, artifactsDir: join(resolve(config.RELAY_PROJECT_DIR), 'intelligence-artifacts'), logger });
  const metrics = createRelayMetrics({ bus, incidents, storeHealth: () => store.health(), ...(team ? { leading: () => team.leading() } : {}) });
  const counted = countedIntake(intake, alertSources, metrics);
  const handling = createIncidentHandling({ incidents, intake, ...(operators ? { people: operators } : {}) });
  // The escalation chain and the pages follow incidents from one place (src/adapters/paging/), not from each call site.
  const paging = setUpPaging({ config, incidents, bus, clock, logger, owns, remind: approvals.tellRoom, steps: () => policy?.escalation() ?? [], proxy: deps.proxy, team: team ? { pool: team.pool, relayId: team.relayId } : undefined, registry: metrics.registry });
  laterWarnings.add(() => paging.warnings());
  const scrubber = createSecretScrubber([...SECRET_KEYS.map((k) => config[k]), toolsToken, terminalSecret]);
  const audit = (late.audit = setUpAudit({ config, incidents, bus, clock, logger, scrub: scrubber.scrub, ...(deps.proxy ? { proxy: deps.proxy } : {}), owns, ...(team ? { team: { pool: team.pool, relayId: team.relayId } } : {}), registry: metrics.registry, warningsTo: laterWarnings }));
  const app = await buildApp({
    config,
    approvals: { decide },
    ...(operators ? { operators } : {}),
    ...(deps.signIn ? { signIn: deps.signIn } : {}),
    scrub: scrubber.scrub,
    proxy: deps.proxy,
    clock,
    sessionLogPath: sessionLog.pathFor,
    uiDistDir: deps.uiDistDir,
    settingSources: deps.settingSources,
    logger,
    agent,
    incidents,
    intake: counted.intake,
    handling,
    alertSources: counted.sources,
    metrics,
    onAuthFailed: audit.authFailed,
    startHeaded,
    terminal: { terminalSecret, tell: tellTerminal, abort: (sessionId) => agent.abort(sessionId) },
    mayStartRun: runGate.mayStart,
    channels: () => approvals.channels(),
    ...(confirmChange ? { confirmChange } : {}),
    quarantine,
    ...(operators ? { approversOnline: () => presence.approvers() } : {}),
    messaging,
    warnings: () => [
      ...standingWarnings({ whenUnattended: config.APPROVAL_WHEN_UNATTENDED, channels: approvals.channels(), model: modelCheck.current() }),
      ...[...laterWarnings].flatMap((source) => source()),
      ...storeWarnings(store.health()),
    ],
    model: () => modelCheck.refresh(),
    blockers: async () => [...(await runBlockers(modelCheck, dispatcher.held)), ...(deviceServer?.blockers() ?? [])],
    store: async () => (store.probe ? store.probe() : store.health()),
    ...(deviceServer ? { deviceProbe: () => httpDeviceProbe(`${deviceServer.endpoint().url}/health`)() } : {}),
    eventStream: () => follower.status(),
    tools: { token: toolsToken, createServer: () => createRelayToolsServer({ incidents, approvals, channels, logger, clock, quarantined: quarantine.cached, planDevices: confirmed?.planDevices, ...(deviceTools ? { preview: (d, c) => deviceTools.previewConfig(d, c) } : {}) }) },
    deviceTools: {
      createServer: () => createDeviceGuardServer({
          incidents,
          approvals,
          upstream: deviceTools,
          strictAllowList,
          progress: runProgress,
          ...(confirmed ? { confirmed, planDevices: confirmed.planDevices } : {}),
          ...{ quarantined: quarantine.check, unsure: quarantine.unsure, logger },
          ...(store.writesBehind ? { durable: () => store.flush() } : {}),
        }),
    },
    protectedRoutes: async (scope) => {
      await scope.register(eventsRoutes, { bus, incidents, clock, logger, presence });
      await deps.protectedRoutes?.(scope);
    },
  });

  // A finished run frees a slot for the next queued alert.
  const offUpdated = bus.subscribe('incident.updated', ({ incident, previous_state }) => {
    if (isTerminal(incident.state) && !isTerminal(previous_state)) dispatcher.kick();
  });
  const offTracing = traceApprovalWaits(bus, incidents.get);
  dispatcher.holdWhile(runGate.heldBecause);
  dispatcher.recover();
  approvals.recover();
  confirmed?.recover();
  paging.start();

  return {
    app,
    bus,
    incidents,
    dispatcher,
    approvals,
    decide,
    ...{ ...(confirmChange ? { confirmChange } : {}), quarantine },
    ...{ holdRunsWhile: runGate.hold, alsoAskWithModel: modelCheck.alsoAsk },
    addStandingWarnings(source) {
      laterWarnings.add(source);
      return () => void laterWarnings.delete(source);
    },
    startHeaded,
    handling,
    onCardSubmission,
    toolsToken,
    terminalSecret,
    sessionLogPath: sessionLog.pathFor,
    async listen(opts = {}) {
      return app.listen({ port: opts.port ?? config.INGEST_PORT, host: opts.host ?? config.RELAY_HOST });
    },
    async close() {
      policy?.stop();
      await paging.stop();
      offUpdated();
      offTracing();
      metrics.stop();
      alertSources.stop();
      offTeam();
      teamDecisions?.stop();
      teamVotes?.stop();
      teamConfirms?.stop();
      approvals.stop();
      void [quarantine.stop(), confirmed?.stop()];
      await app.close();
      await audit.stop();
      await dispatcher.stop();
      await follower.stop();
      await sessionLog.stop();
      await ownDeviceTools?.close();
      await deviceServer?.stop();
      await store.close();
    },
  };
}
