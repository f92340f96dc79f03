import type { IncidentSummary } from '../bridge/contract';

type State = IncidentSummary['state'];

export const STATE_LABELS: Record<State, string> = {
  queued: 'queued',
  running: 'running',
  awaiting_approval: 'awaiting approval',
  approved: 'approved',
  denied: 'denied',
  resolved: 'resolved',
  escalated: 'escalated',
  failed: 'failed',
};

/** "42s", "5m", "3h 10m", "2d 4h": short enough for a list column. */
export function formatAge(fromIso: string, now: Date): string {
  const s = Math.max(0, Math.floor((now.getTime() - new Date(fromIso).getTime()) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d ${h % 24}h` : `${d}d`;
}

/** `2026-11-21T10:00:03.123Z` → `10:00:03` (UTC, as the logs and the room say). */
export const clockTime = (iso: string) => iso.slice(11, 19);

/** `2026-11-21 10:00:03 UTC`. */
export const utcStamp = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** Time left until `untilIso`: "12m", "45s", or "expired". */
export function formatTimeLeft(untilIso: string, now: Date): string {
  const ms = new Date(untilIso).getTime() - now.getTime();
  if (ms <= 0) return 'expired';
  return formatAge(new Date(now.getTime() - ms).toISOString(), now);
}
