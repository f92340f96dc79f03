import type { DecisionCommand } from '../src/core/approvals/decision-command';
import type { Decision } from '../src/core/incidents/model';

/**
 * A decision from the tray (its window, a notification, its menu's dialog) as the relay's one
 * `decide` takes it: by the tray's user on this machine (their `os_user` in OPERATORS_FILE), for the
 * request the person was shown. In team mode the same command goes to the team relay, which knows
 * the person by their personal token instead.
 */
export function desktopDecision(user: string, incidentId: string, requestId: string, decision: Decision, reason?: string): DecisionCommand {
  return { incident_id: incidentId, request_id: requestId, decision, who: { id: user, authenticated_by: 'os_user' }, channel: 'desktop', ...(reason !== undefined ? { reason } : {}) };
}
