import { randomBytes } from 'node:crypto';
import type { NormalizedAlert } from '../core/incidents/normalized-alert';
import { isTerminal } from '../core/incidents/model';
import { traceApprovalWaits } from '../adapters/telemetry/incident-events';
import { relayApp } from './relay-app';
import { relayChanges, type RelayChanges } from './relay-changes';
import { relayDecisions, relayGate, type RelayGate } from './relay-gate';
import { relayFollowers, relayObservers } from './relay-observers';
import { relayDelivery, relayFoundation, type RelayFoundation } from './relay-parts';
export type { Relay, RelayCluster, RelayDeps } from './relay-contract';
import type { Relay, RelayDeps } from './relay-contract';

/**
 * The one factory both the tray and the headless relay call. The relay asks its cluster (a laptop
 * alone, or a team on one database) and never whether it is on a team.
 */
export async function createRelay(deps: RelayDeps): Promise<Relay> {
  const f = await relayFoundation(deps);
  // A plan's other devices come from the changes, made below: asked only once an alert arrives.
  const planDevicesFor = async (alert: NormalizedAlert) => changes.confirmed?.planDevicesFor(alert) ?? [];
  const delivery = relayDelivery(f, deps, planDevicesFor);
  const gate = await relayGate(f, deps, planDevicesFor);
  const secrets = {
    toolsToken: deps.toolsToken ?? f.config.RELAY_TOOLS_TOKEN ?? randomBytes(24).toString('base64url'),
    // The terminal's decision credential: in the relay's data folder for npm run headed, never in the runtime's environment.
    terminalSecret: deps.terminalSecret ?? randomBytes(32).toString('base64url'),
  };
  const followers = relayFollowers(f, gate);
  const changes = relayChanges(f, gate, deps);
  const decisions = relayDecisions(f, gate, { dispatcher: delivery.dispatcher, ...(changes.confirmed ? { confirmLocally: changes.confirmed.confirmByPerson } : {}) });
  const observers = relayObservers(f, gate, delivery, deps, secrets);
  const app = await relayApp(f, deps, { gate, changes, dispatcher: delivery.dispatcher, decisions, followers, observers, secrets });
  // A finished run frees a slot for the next queued alert.
  const offUpdated = f.bus.subscribe('incident.updated', ({ incident, previous_state }) => {
    if (isTerminal(incident.state) && !isTerminal(previous_state)) delivery.dispatcher.kick();
  });
  const offTracing = traceApprovalWaits(f.bus, f.incidents.get);
  delivery.dispatcher.holdWhile(f.runGate.heldBecause);
  delivery.dispatcher.recover();
  gate.approvals.recover();
  changes.confirmed?.recover();
  observers.paging.start();
  const parts = { gate, changes, delivery, decisions, followers, observers };
  return relayHandle(f, app, parts, secrets, () => {
    offUpdated();
    offTracing();
  });
}

interface RelayParts {
  gate: RelayGate;
  changes: RelayChanges;
  delivery: ReturnType<typeof relayDelivery>;
  decisions: ReturnType<typeof relayDecisions>;
  followers: ReturnType<typeof relayFollowers>;
  observers: ReturnType<typeof relayObservers>;
}

/** What the tray, the headless relay and the tests hold of a relay, and its stop in order. */
function relayHandle(f: RelayFoundation, app: Relay['app'], p: RelayParts, secrets: { toolsToken: string; terminalSecret: string }, offSubscriptions: () => void): Relay {
  const { gate, changes, delivery, decisions, followers, observers } = p;
  return {
    app,
    bus: f.bus,
    incidents: f.incidents,
    dispatcher: delivery.dispatcher,
    approvals: gate.approvals,
    decide: decisions.decide,
    ...{ ...(decisions.confirm ? { confirm: decisions.confirm } : {}), quarantine: gate.quarantine },
    ...{ holdRunsWhile: f.runGate.hold, alsoAskWithModel: f.modelCheck.alsoAsk },
    addStandingWarnings(source) {
      f.laterWarnings.add(source);
      return () => void f.laterWarnings.delete(source);
    },
    startHeaded: gate.startHeaded,
    handling: observers.handling,
    ...secrets,
    sessionLogPath: followers.sessionLog.pathFor,
    async listen(opts = {}) {
      return app.listen({ port: opts.port ?? f.config.INGEST_PORT, host: opts.host ?? f.config.RELAY_HOST });
    },
    async close() {
      gate.policy?.stop();
      await observers.paging.stop();
      offSubscriptions();
      observers.metrics.stop();
      delivery.alertSources.stop();
      decisions.stop();
      gate.approvals.stop();
      void [gate.quarantine.stop(), changes.confirmed?.stop()];
      await app.close();
      await observers.audit.stop();
      await delivery.dispatcher.stop();
      await followers.follower.stop();
      await followers.sessionLog.stop();
      await changes.ownDeviceTools?.close();
      await f.deviceServer?.stop();
      await f.store.close();
    },
  };
}
