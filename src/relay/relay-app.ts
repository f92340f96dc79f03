import { createRelayToolsServer } from '../adapters/agent-tools/relay-tools';
import { createDeviceGuardServer } from '../adapters/device-tools/device-guard';
import type { ConfirmFn, DecideFn } from '../core/approvals/decision-command';
import type { Dispatcher } from '../core/delivery/dispatcher';
import { buildApp } from './app';
import { httpDeviceProbe } from './health-checks';
import type { RelayDeps } from './relay-contract';
import type { RelayChanges } from './relay-changes';
import type { RelayGate } from './relay-gate';
import type { RelayFoundation } from './relay-parts';
import type { relayFollowers, relayObservers } from './relay-observers';
import { eventsRoutes } from './routes/events';
import { runBlockers, standingWarnings, storeWarnings } from './standing-warnings';

/** The relay's HTTP surface over its parts: the routes, /health and the two MCP endpoints the agents reach. */
export function relayApp(
  f: RelayFoundation,
  deps: RelayDeps,
  parts: {
    gate: RelayGate;
    changes: RelayChanges;
    dispatcher: Dispatcher;
    decisions: { decide: DecideFn; confirm?: ConfirmFn | undefined };
    followers: ReturnType<typeof relayFollowers>;
    observers: ReturnType<typeof relayObservers>;
    secrets: { toolsToken: string; terminalSecret: string };
  },
) {
  const { config, incidents, agent, bus, clock, logger, operators, store, modelCheck, deviceServer } = f;
  const { gate, changes, observers, secrets } = parts;
  const { approvals, channels, quarantine } = gate;
  const { deviceTools, confirmed } = changes;
  return buildApp({
    config,
    decide: parts.decisions.decide,
    ...(operators ? { operators } : {}),
    ...(deps.signIn ? { signIn: deps.signIn } : {}),
    scrub: observers.scrubber.scrub,
    proxy: deps.proxy,
    clock,
    sessionLogPath: parts.followers.sessionLog.pathFor,
    uiDistDir: deps.uiDistDir,
    settingSources: deps.settingSources,
    logger,
    agent,
    incidents,
    intake: observers.counted.intake,
    handling: observers.handling,
    alertSources: observers.counted.sources,
    metrics: observers.metrics,
    onAuthFailed: observers.audit.authFailed,
    startHeaded: gate.startHeaded,
    terminal: { terminalSecret: secrets.terminalSecret, tell: gate.tellTerminal, abort: (sessionId) => agent.abort(sessionId) },
    mayStartRun: f.runGate.mayStart,
    channels: () => approvals.channels(),
    ...(parts.decisions.confirm ? { confirm: parts.decisions.confirm } : {}),
    quarantine,
    ...(operators ? { approversOnline: () => f.presence.approvers() } : {}),
    messaging: gate.messaging,
    warnings: () => [
      ...standingWarnings({ whenUnattended: config.APPROVAL_WHEN_UNATTENDED, channels: approvals.channels(), model: modelCheck.current() }),
      ...[...f.laterWarnings].flatMap((source) => source()),
      ...storeWarnings(store.health()),
    ],
    model: () => modelCheck.refresh(),
    blockers: async () => [...(await runBlockers(modelCheck, parts.dispatcher.held)), ...(deviceServer?.blockers() ?? [])],
    store: async () => (store.probe ? store.probe() : store.health()),
    ...(deviceServer ? { deviceProbe: () => httpDeviceProbe(`${deviceServer.endpoint().url}/health`)() } : {}),
    eventStream: () => parts.followers.follower.status(),
    tools: { token: secrets.toolsToken, createServer: () => createRelayToolsServer({ incidents, approvals, channels, logger, clock, quarantined: quarantine.cached, planDevices: confirmed?.planDevices, ...(deviceTools ? { preview: (d, c) => deviceTools.previewConfig(d, c) } : {}) }) },
    deviceTools: {
      createServer: () => createDeviceGuardServer({
          incidents,
          approvals,
          upstream: deviceTools,
          strictAllowList: changes.strictAllowList,
          progress: changes.runProgress,
          ...(confirmed ? { confirmed, planDevices: confirmed.planDevices } : {}),
          ...{ quarantined: quarantine.check, unsure: quarantine.unsure, logger },
          ...(f.durable ? { durable: f.durable } : {}),
        }),
    },
    protectedRoutes: async (scope) => {
      await scope.register(eventsRoutes, { bus, incidents, clock, logger, presence: f.presence });
      await deps.protectedRoutes?.(scope);
    },
  });
}
