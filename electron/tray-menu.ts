import type { MenuItemConstructorOptions } from 'electron';
import type { Decision } from '../src/core/incidents/model';
import type { TrayStatus } from './tray-state';

export interface PendingApproval {
  incidentId: string;
  device: string;
  summary: string;
  commands: string[];
}

export interface TrayMenuModel {
  status: TrayStatus;
  /** Newest first. */
  pending: PendingApproval[];
  /** What the copy item will copy, e.g. "INC-… on R1" or "sample AD000002 on R1". */
  promptFor: string;
  startAtLogin: boolean;
  /** Saved settings wait for a relay restart. */
  restartPending: boolean;
}

export interface TrayMenuActions {
  /** Asks for confirmation with the exact commands, then decides. */
  confirmDecision(incidentId: string, decision: Decision): void;
  openIncident(incidentId: string): void;
  openDashboard(): void;
  copyHeadedPrompt(): void;
  openSessionLogs(): void;
  setStartAtLogin(enabled: boolean): void;
  restartRelay(): void;
  quit(): void;
}

const MAX_SHOWN_COMMANDS = 6;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function approvalItem(p: PendingApproval, actions: TrayMenuActions): MenuItemConstructorOptions {
  const shown = p.commands.slice(0, MAX_SHOWN_COMMANDS).map((c): MenuItemConstructorOptions => ({ label: clip(c, 80), enabled: false }));
  const more = p.commands.length - shown.length;
  return {
    label: clip(`${p.device}: ${p.summary}`, 60),
    submenu: [
      { label: p.incidentId, enabled: false },
      ...shown,
      ...(more > 0 ? [{ label: `… and ${more} more`, enabled: false }] : []),
      { type: 'separator' },
      { label: 'Approve…', click: () => actions.confirmDecision(p.incidentId, 'APPROVED') },
      { label: 'Deny…', click: () => actions.confirmDecision(p.incidentId, 'DENIED') },
      { label: 'Show in dashboard', click: () => actions.openIncident(p.incidentId) },
    ],
  };
}

/** The tray menu as a plain template: what the user sees is decided here, and tested here. */
export function buildTrayMenu(model: TrayMenuModel, actions: TrayMenuActions): MenuItemConstructorOptions[] {
  return [
    { label: model.status.line, enabled: false },
    ...model.status.progress.map((p): MenuItemConstructorOptions => ({ label: clip(p, 100), enabled: false })),
    ...model.status.warnings.map((w): MenuItemConstructorOptions => ({ label: clip(`⚠ ${w}`, 120), enabled: false })),
    ...(model.pending.length > 0 ? [{ type: 'separator' } as const, ...model.pending.map((p) => approvalItem(p, actions))] : []),
    { type: 'separator' },
    { label: 'Open dashboard', click: () => actions.openDashboard() },
    { label: `Copy headed-mode prompt (${model.promptFor})`, click: () => actions.copyHeadedPrompt() },
    { label: 'Open session logs', click: () => actions.openSessionLogs() },
    { type: 'separator' },
    { label: 'Start at login', type: 'checkbox', checked: model.startAtLogin, click: (item) => actions.setStartAtLogin(item.checked) },
    ...(model.restartPending ? [{ label: 'Restart relay to apply settings', click: () => actions.restartRelay() }] : []),
    { label: 'Quit Fault Relay', click: () => actions.quit() },
  ];
}
