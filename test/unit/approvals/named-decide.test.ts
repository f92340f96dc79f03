import { describe, expect, it } from 'vitest';
import { namedDecide } from '../../../src/core/approvals/named-decide';
import type { Actor, GateDecide } from '../../../src/core/approvals/types';
import { createOperatorDirectory, newToken } from '../../../src/core/operators/operators';

const operators = createOperatorDirectory([
  { name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', slack_user_id: 'U0ANA', os_user: 'aruiz', token_sha256: newToken().sha256 },
  { name: 'Bo Lind', email: 'bo@example.net', role: 'approver', token_sha256: newToken().sha256 },
]);

/** Who the one decide() was told decided, for a decision on `channel` by `id`. */
function recorded(id: string, channel: string): string {
  let seen: Actor | undefined;
  const decide: GateDecide = ({ actor }) => ((seen = actor), { status: 'unknown_incident' });
  void namedDecide(decide, operators)({ incident_id: 'INC-1', decision: 'APPROVED', who: { id, authenticated_by: 'channel' }, channel });
  return seen!.id;
}

describe('a decision is recorded under the OPERATORS_FILE name, whichever channel it came from', () => {
  it('by e-mail (API, /ui, Webex), Slack member id, and the tray and terminal by os_user', () => {
    expect(recorded('ana@example.net', 'api')).toBe('Ana Ruiz');
    expect(recorded('slack:U0ANA', 'slack')).toBe('Ana Ruiz');
    expect(recorded('aruiz', 'desktop')).toBe('Ana Ruiz');
    expect(recorded('aruiz (terminal)', 'terminal')).toBe('Ana Ruiz');
  });

  it('keeps the channel identity for an unmapped account, and never looks up a name a caller passes', () => {
    expect(recorded('root', 'desktop')).toBe('root');
    expect(recorded('bo (terminal)', 'terminal')).toBe('bo (terminal)');
    // An OS account is matched only on the channels that know the person by it.
    expect(recorded('aruiz', 'api')).toBe('aruiz');
    expect(recorded('bo-lind@example.org', 'webex')).toBe('bo-lind@example.org');
  });
});
