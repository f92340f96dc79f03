import { app, Notification } from 'electron';
import type pino from 'pino';
import type { Bus } from '../src/core/events/bus';
import type { RelayEvents } from '../src/core/incidents/events';
import { entries } from '../src/core/events/timeline-entries';
import { toDecideOutcome } from './desktop-api';
import type { RequestChannels } from './ipc/contract';
import { sendToRenderer } from './ipc/main-ipc';
import { createNotifier } from './notifications';
import type { createRelayHost } from './relay-host';
import { forwardRelayEvents } from './renderer-events';
import type { TeamClient } from './team-client';
import type { QuarantineEntry } from '../src/core/quarantine/entry';
import type { createTrayController } from './tray';

/** What the main process wires the tray's two modes with. */

/** The tray's window, as the followers reach it. */
export interface Windows {
  show(incidentId?: string): void;
  send(channel: Parameters<typeof sendToRenderer>[1], payload: Parameters<typeof sendToRenderer>[2]): void;
}
export interface Followers {
  trayController: ReturnType<typeof createTrayController>;
  windows: Windows;
  user: string;
  logger: pino.Logger;
  /** A team relay's quarantines as this app last read them (a laptop relay's are asked directly). */
  quarantined?: (device: string) => QuarantineEntry | undefined;
}

/** "This laptop": the relay's approvals as desktop notifications decided through its one `decide`, its events to the tray and the window. */
export function followLaptopRelay(running: NonNullable<ReturnType<ReturnType<typeof createRelayHost>['current']>>, f: Followers): () => void {
  const notifier = createNotifier({
    Notification,
    supportsActions: process.platform === 'darwin',
    bus: running.relay.bus,
    decide: async (command) => toDecideOutcome(await running.relay.decide(command)),
    user: f.user,
    openIncident: (id) => f.windows.show(id),
    isSupported: () => Notification.isSupported(),
    onNotificationFailed: (id, message) => running.relay.incidents.record(id, entries.desktopNotificationFailed, message),
    quarantined: (device) => running.relay.quarantine.cached(device),
    logger: f.logger,
  });
  const offs = [
    f.trayController.watch(running.relay.bus),
    forwardRelayEvents(running.relay.bus, (event) => f.windows.send('relay-event', event)),
  ];
  return () => {
    notifier.stop();
    offs.forEach((off) => off());
  };
}

/** "Team relay": the team's approvals as desktop notifications decided over its API as this person, its events to the tray and the window. */
export function followTeamRelay(team: TeamClient, teamBus: Bus<RelayEvents>, api: RequestChannels, f: Followers): void {
  const notifier = createNotifier({
    Notification,
    supportsActions: process.platform === 'darwin',
    bus: teamBus,
    decide: (command) => api.decide(command.incident_id, command.request_id ?? '', command.decision),
    user: f.user,
    openIncident: (id) => f.windows.show(id),
    isSupported: () => Notification.isSupported(),
    onNotificationFailed: (id, message) => f.logger.warn({ incident_id: id }, message),
    ...(f.quarantined ? { quarantined: f.quarantined } : {}),
    logger: f.logger,
  });
  f.trayController.watch(teamBus);
  forwardRelayEvents(teamBus, (event) => f.windows.send('relay-event', event));
  app.on('will-quit', () => {
    notifier.stop();
    void team.stop();
  });
}
