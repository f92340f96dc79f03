import { useState } from 'react';
import { RelayAnswer } from './relay-answer';
import { handlingOf, type IncidentAction } from '../../src/core/incidents/incident-handling';
import { isTerminal, type TimelineEntry } from '../../src/core/incidents/model';
import type { Bridge, IncidentSummary } from '../bridge/contract';
import { utcStamp } from '../lib/format';
import { errorText } from '../../src/core/error-body';

/**
 * What a person does with an incident besides its approval: take it on (pages stop), hand it to
 * someone on the team, close a finished run with a reason, retry one that failed or was escalated.
 * The relay checks who is asking and answers in words; viewers see the state only.
 */
export function IncidentActions({ bridge, incident, timeline }: { bridge: Bridge; incident: Pick<IncidentSummary, 'incident_id' | 'state'>; timeline: readonly TimelineEntry[] }) {
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | undefined>();
  const [assignee, setAssignee] = useState('');
  const [reason, setReason] = useState('');
  const h = handlingOf(timeline);
  const finished = isTerminal(incident.state);
  const act = (action: IncidentAction) => {
    setBusy(true);
    setAnswer(undefined);
    bridge
      .incidentAction(incident.incident_id, action)
      .then(
        (r) => setAnswer({ ok: r.status === 'done', text: r.message }),
        (e: unknown) => setAnswer({ ok: false, text: errorText(e) }),
      )
      .finally(() => setBusy(false));
  };
  return (
    <section className="panel incident-actions" aria-label="Handling">
      <ul className="handling">
        {h.assigned ? (
          <li>
            Assigned to <strong>{h.assigned.to}</strong> by {h.assigned.by} at {utcStamp(h.assigned.at)}
          </li>
        ) : null}
        {h.closed ? (
          <li>
            Closed by <strong>{h.closed.by}</strong> at {utcStamp(h.closed.at)}: <q>{h.closed.reason}</q>
          </li>
        ) : null}
        {h.retried ? (
          <li>
            Retried by {h.retried.by} as <a href={`#/incidents/${encodeURIComponent(h.retried.incident_id)}`}>{h.retried.incident_id}</a>
          </li>
        ) : null}
      </ul>
      {bridge.canDecide && !h.closed ? (
        <div className="action-row">
          {h.acknowledged ? null : (
            <button type="button" disabled={busy} onClick={() => act({ kind: 'acknowledge' })} title="Take it on: the escalation chain stops and the page is acknowledged">
              Acknowledge
            </button>
          )}
          <input type="email" aria-label="Assign to (e-mail)" placeholder="e-mail of a person on the team" value={assignee} onChange={(e) => setAssignee(e.target.value)} />
          <button type="button" disabled={busy || !assignee.trim()} onClick={() => act({ kind: 'assign', to: assignee.trim() })}>
            Assign
          </button>
          {finished ? (
            <>
              <input type="text" aria-label="Reason to close" placeholder="why it is closed" value={reason} onChange={(e) => setReason(e.target.value)} />
              <button type="button" disabled={busy || !reason.trim()} onClick={() => act({ kind: 'close', reason: reason.trim() })}>
                Close
              </button>
            </>
          ) : null}
          {(incident.state === 'failed' || incident.state === 'escalated') && !h.retried ? (
            <button type="button" disabled={busy} onClick={() => act({ kind: 'retry' })} title="Start a new run for the same fault">
              Retry
            </button>
          ) : null}
        </div>
      ) : null}
      <RelayAnswer answer={answer} />
    </section>
  );
}
