import type { DecisionCommand, DecisionPerson } from '../../src/core/approvals/decision-command';
import type { DecideResult } from '../../src/core/approvals/types';
import type { Relay } from '../../src/relay/create-relay';

/** How each built-in channel knows its person; an operator channel (Webex, Slack) vouches for them itself. */
const AUTHENTICATED_BY: Record<string, DecisionPerson['authenticated_by']> = {
  desktop: 'os_user',
  terminal: 'terminal_secret',
  api: 'personal_token',
  ui: 'ui_session',
  test: 'relay',
};

/**
 * `person`'s decision on the pending request, through the relay's one `decide`, built as `channel`
 * would build it (by default the tray's: `desktop`, the person's account on this machine).
 */
export function decideAs(
  relay: Pick<Relay, 'decide'>,
  incidentId: string,
  decision: DecisionCommand['decision'],
  person: string,
  opts: { channel?: string; reason?: string; requestId?: string } = {},
): Promise<DecideResult> {
  const channel = opts.channel ?? 'desktop';
  return relay.decide({
    incident_id: incidentId,
    decision,
    who: { id: person, authenticated_by: AUTHENTICATED_BY[channel] ?? 'channel' },
    channel,
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
    ...(opts.requestId !== undefined ? { request_id: opts.requestId } : {}),
  });
}
