import { useState } from 'react';
import { RelayAnswer } from './relay-answer';
import { changeOutcomeText } from '../../src/core/incidents/change';
import type { Bridge, IncidentSummary } from '../bridge/contract';
import { utcStamp } from '../lib/format';
import { useNow } from '../lib/use-now';
import { errorText } from '../../src/core/error-body';

/**
 * The applied change while it is provisional, and how it ended: "confirmed by post-check",
 * "rolled back: post-check failed", "rolled back: not confirmed within 120 s". While it is pending a
 * person can keep it; the relay checks who (an approver) and that it is still this change.
 */
export function ChangePanel({ incident, bridge }: { incident: IncidentSummary; bridge: Bridge }) {
  const change = incident.change;
  const now = useNow(1_000);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | undefined>();
  if (!change) return null;
  const left = Math.max(0, Math.round((Date.parse(change.deadline) - now.getTime()) / 1000));
  const keep = () => {
    setBusy(true);
    setAnswer(undefined);
    bridge
      .confirmChange(incident.incident_id, change.change_id)
      .then(
        (r) => setAnswer(r.status === 'confirmed' ? { ok: true, text: r.outcome } : { ok: false, text: r.message }),
        (e: unknown) => setAnswer({ ok: false, text: errorText(e) }),
      )
      .finally(() => setBusy(false));
  };
  return (
    <section className={`panel change change-${change.state}`} aria-label="Change">
      <p>
        <strong>Change on {change.device}</strong>: {changeOutcomeText(change)}
        {change.state === 'pending' ? ` (rolls back at ${utcStamp(change.deadline)}, in ${left} s)` : change.ended_at ? ` at ${utcStamp(change.ended_at)}` : ''}
      </p>
      {change.state === 'pending' ? (
        <button type="button" onClick={keep} disabled={busy} title="Keep the change now, before the post-check or the deadline">
          {busy ? 'Confirming…' : 'Keep this change'}
        </button>
      ) : null}
      <RelayAnswer answer={answer} />
    </section>
  );
}
