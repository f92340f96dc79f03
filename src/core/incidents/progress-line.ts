import type { Incident } from './model';

/** "42s", "5m 10s", "1h 3m": a run's elapsed time or an approval's time left. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m}m ${s % 60}s` : `${m}m`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
}

type Progressing = Pick<Incident, 'device_hostname' | 'state' | 'created_at' | 'progress' | 'approval_request'>;

/**
 * Where a long run is, in one line for the tray's tooltip and menu and the window:
 * "R1: step 3/8 collect_bgp_config · 2m 10s elapsed", with the time left when an approval waits.
 */
export function progressLine(i: Progressing, now: Date): string {
  const parts: string[] = [];
  if (i.state === 'awaiting_approval' && i.approval_request) {
    const left = Date.parse(i.approval_request.expires_at) - now.getTime();
    parts.push(left > 0 ? `approval ${shortDuration(left)} left` : 'approval expired');
    const { requirement, votes } = i.approval_request;
    if (requirement) parts.push(`${requirement.rule}: ${votes?.length ?? 0} of ${requirement.count} approvals from ${requirement.groups.join(', ')}`);
  }
  if (i.progress) parts.push(i.progress.index !== null ? `step ${i.progress.index}/${i.progress.total} ${i.progress.step}` : `step ${i.progress.step}`);
  parts.push(`${shortDuration(now.getTime() - Date.parse(i.created_at))} elapsed`);
  return `${i.device_hostname}: ${parts.join(' · ')}`;
}
