import type { Incident, IncidentState } from '../src/core/incidents/model';
import { progressLine } from '../src/core/incidents/progress-line';

export const TRAY_STATES = ['idle', 'running', 'awaiting_approval', 'degraded'] as const;
export type TrayState = (typeof TRAY_STATES)[number];

export interface TrayHealth {
  /** null until the first check answered. */
  ok: boolean | null;
  /** What is wrong, in words the user can act on. */
  problem?: string;
  /** Standing configuration warnings from the relay (unattended approve, no model): always shown. */
  warnings?: string[];
}

const ACTIVE: ReadonlySet<IncidentState> = new Set(['queued', 'running', 'approved', 'denied']);

export interface TrayStatus {
  state: TrayState;
  /** The first line of the menu and the icon's tooltip. */
  line: string;
  /** Shown under the first line, and in the tooltip, until the configuration changes. */
  warnings: string[];
  /** One line per run in progress or approval waiting: its RAW step, elapsed time, time left (at most 5). */
  progress: string[];
}

type TrayIncident = { state: IncidentState } & Partial<Pick<Incident, 'device_hostname' | 'created_at' | 'progress' | 'approval_request'>>;
const MAX_PROGRESS_LINES = 5;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * One icon for what most needs the engineer: a pending approval beats a broken runtime
 * (the decision still counts, the run waits for it), which beats runs in progress.
 */
export function trayStatus(incidents: readonly TrayIncident[], health: TrayHealth, now: Date = new Date()): TrayStatus {
  const progress = incidents
    .filter((i) => i.state === 'awaiting_approval' || ACTIVE.has(i.state))
    .filter((i): i is TrayIncident & Pick<Incident, 'device_hostname' | 'created_at'> => Boolean(i.device_hostname && i.created_at))
    .sort((a, b) => (a.state === 'awaiting_approval' ? 0 : 1) - (b.state === 'awaiting_approval' ? 0 : 1))
    .slice(0, MAX_PROGRESS_LINES)
    .map((i) => progressLine({ progress: null, approval_request: null, ...i }, now));
  return { ...trayLine(incidents, health), warnings: health.warnings ?? [], progress };
}

function trayLine(incidents: readonly { state: IncidentState }[], health: TrayHealth): Pick<TrayStatus, 'state' | 'line'> {
  const awaiting = incidents.filter((i) => i.state === 'awaiting_approval').length;
  const active = incidents.filter((i) => ACTIVE.has(i.state)).length;
  const runs = active > 0 ? ` · ${plural(active, 'run')} in progress` : '';
  if (awaiting > 0) return { state: 'awaiting_approval', line: `${plural(awaiting, 'approval')} waiting for you${runs}` };
  if (health.ok === false) return { state: 'degraded', line: `Degraded: ${health.problem ?? 'a health check failed'}` };
  if (active > 0) return { state: 'running', line: `${plural(active, 'run')} in progress` };
  return { state: 'idle', line: health.ok === null ? 'Starting…' : 'Idle: no active incidents' };
}
