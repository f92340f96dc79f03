import type { MenuItemConstructorOptions } from 'electron';
import type { Bus } from '../src/core/events/bus';
import type { RelayEvents } from '../src/core/incidents/events';
import type { Incident, IncidentState } from '../src/core/incidents/model';
import { buildTrayMenu, type TrayMenuActions, type TrayMenuModel } from './tray-menu';
import { trayStatus, type TrayHealth, type TrayState, type TrayStatus } from './tray-state';

/** The part of Electron's Tray this controller drives; `Image` is a NativeImage in the app. */
export interface TrayLike<Image, Menu> {
  setImage(image: Image): void;
  setToolTip(text: string): void;
  setContextMenu(menu: Menu | null): void;
}

export interface TrayControllerDeps<Image, Menu> {
  tray: TrayLike<Image, Menu>;
  /** Menu.buildFromTemplate in the app. */
  buildMenu(template: MenuItemConstructorOptions[]): Menu;
  icons: Record<TrayState, Image>;
  /** What the relay holds now; empty while it is not running. */
  incidents(): ({ state: IncidentState } & Partial<Pick<Incident, 'device_hostname' | 'created_at' | 'progress' | 'approval_request'>>)[];
  /** The time, for elapsed and time-left lines (tests fix it). */
  now?: () => Date;
  pending(): Pick<Incident, 'incident_id' | 'device_hostname' | 'approval_request'>[];
  /** The rest of the menu model that lives outside the relay. */
  extras(): Pick<TrayMenuModel, 'promptFor' | 'startAtLogin' | 'restartPending'>;
  actions: TrayMenuActions;
}

const RELEVANT = ['incident.created', 'incident.updated', 'approval.requested', 'approval.decided'] as const;

/** Keeps the tray's icon, tooltip and menu in step with the relay's events and its health. */
export function createTrayController<Image, Menu>(deps: TrayControllerDeps<Image, Menu>) {
  let health: TrayHealth = { ok: null };
  let shown: TrayState | undefined;
  let status: TrayStatus = trayStatus([], health);

  function refresh() {
    status = trayStatus(deps.incidents(), health, deps.now?.() ?? new Date());
    if (status.state !== shown) {
      deps.tray.setImage(deps.icons[status.state]);
      shown = status.state;
    }
    deps.tray.setToolTip([`Fault Relay: ${status.line}`, ...status.progress, ...status.warnings.map((w) => `⚠ ${w}`)].join('\n'));
    const pending = deps.pending().map((i) => ({
      incidentId: i.incident_id,
      device: i.approval_request?.device ?? i.device_hostname,
      summary: i.approval_request?.summary ?? '',
      commands: i.approval_request?.commands ?? [],
    }));
    deps.tray.setContextMenu(deps.buildMenu(buildTrayMenu({ status, pending, ...deps.extras() }, deps.actions)));
  }

  return {
    refresh,
    status: () => status,
    setHealth(next: TrayHealth) {
      health = next;
      refresh();
    },
    /** Follows one running relay's bus; returns the function that stops following. */
    watch(bus: Bus<RelayEvents>): () => void {
      const offs = RELEVANT.map((type) => bus.subscribe(type, () => refresh()));
      refresh();
      return () => offs.forEach((off) => off());
    },
  };
}

export type TrayController = ReturnType<typeof createTrayController>;
