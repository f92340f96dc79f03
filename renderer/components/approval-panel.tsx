import { useState } from 'react';
import type { ApprovalRequest, TimelineEntry } from '../../src/core/incidents/model';
import type { PlanView } from '../../src/core/approvals/plan-view';
import type { Bridge, DecideOutcome, IncidentSummary } from '../bridge/contract';
import { utcStamp } from '../lib/format';
import { requestRequirementLine } from '../../src/core/approvals/standing';
import { AGENT_SUMMARY_LABEL } from '../../src/core/approvals/inert-text';
import { AgentText } from './agent-text';
import { rollbackLines } from '../../src/runbooks/rollback-text';
import { Commands, Preview, Rollback } from './change-lines';
import { PlanGroups } from './plan-groups';
import { entries, isEntry } from '../../src/core/events/timeline-entries';
import { errorText } from '../../src/core/error-body';

function outcomeText(o: DecideOutcome): string {
  switch (o.status) {
    case 'accepted':
      return o.standing ? `Decision sent (${o.standing}); the agent is told now.` : 'Decision sent; the agent is told now.';
    case 'recorded':
      return `Counted, not decided yet: ${o.message}`;
    case 'already_decided':
      return `Already ${o.decision} by ${o.by} (${o.channel}) at ${utcStamp(o.at)}.`;
    case 'not_awaiting':
      return `Nothing to decide any more: the incident is ${o.state}.`;
    case 'unknown_incident':
      return 'The relay no longer knows this incident.';
    case 'refused':
      return `Not decided: ${o.message}`;
    case 'stale_request':
      return `Not decided: this was request ${o.request_id}, which is no longer pending${o.pending_request_id ? `; request ${o.pending_request_id} is pending now, read it first` : ''}.`;
  }
}

const CHANNEL_NAMES: Record<string, string> = { webex: 'Webex', desktop: 'tray', terminal: 'terminal' };

/** What the agents saw on the device before asking: every show command with its whole output. */
function Evidence({ timeline }: { timeline: TimelineEntry[] }) {
  const reads = timeline.filter((e) => isEntry(e, entries.deviceExec));
  return (
    <section className="evidence" aria-label="Evidence">
      <div className="dim small">Evidence: what the agents read on the device</div>
      {reads.length === 0 ? <p className="empty">No show output recorded for this incident.</p> : null}
      {reads.map((e, i) => (
        <details key={`${e.at}${i}`} open={i >= reads.length - 3}>
          <summary className="mono">{e.message}</summary>
          <pre className="mono tl-output" tabIndex={0}>
            {typeof e.output === 'string' ? e.output : ''}
          </pre>
        </details>
      ))}
    </section>
  );
}

/** Who asked (the agent whose tool call made the request) and where the question went. */
function askedBy(timeline: TimelineEntry[]): string | undefined {
  const call = [...timeline].reverse().find((e) => e.type.startsWith('tool.') && /request_approval/.test(String(e.tool ?? '')));
  return typeof call?.agent === 'string' ? call.agent : undefined;
}

/** The request's facts: the device (or the plan's devices), request id, times, RAW step, who asked and where, hash, policy. */
function RequestFacts({ request, plan, pending, timeline }: { request: ApprovalRequest; plan: PlanView | undefined; pending: boolean; timeline: TimelineEntry[] }) {
  return (
    <dl className="facts">
      {plan ? (
        <>
          <dt>plan over</dt>
          <dd className="mono">{plan.devices.map((d) => d.device).join(', ')}</dd>
        </>
      ) : (
        <>
          <dt>device</dt>
          <dd className="mono">{request.device}</dd>
        </>
      )}
      {request.request_id ? (
        <>
          <dt>{plan ? 'plan request' : 'request'}</dt>
          <dd className="mono">{request.request_id}</dd>
        </>
      ) : null}
      <dt>requested</dt>
      <dd>{utcStamp(request.requested_at)}</dd>
      {pending ? (
        <>
          <dt>expires</dt>
          <dd>{utcStamp(request.expires_at)}</dd>
        </>
      ) : null}
      {request.artifact_ref ? (
        <>
          <dt>RAW step</dt>
          <dd className="mono">{request.artifact_ref}</dd>
        </>
      ) : null}
      <dt>asked by</dt>
      <dd>
        {askedBy(timeline) ?? 'the agent'}
        {request.channels.length ? `, sent to ${request.channels.map((c) => CHANNEL_NAMES[c] ?? c).join(', ')}` : ', no live channel'}
      </dd>
      {request.lines_sha256 ? (
        <>
          <dt>{plan ? 'plan hash' : 'lines'}</dt>
          <dd className="mono" title={request.lines_sha256}>
            sha256 {request.lines_sha256.slice(0, 12)}
          </dd>
        </>
      ) : null}
      {requestRequirementLine(request) ? (
        <>
          <dt>policy</dt>
          <dd>{requestRequirementLine(request)}</dd>
        </>
      ) : null}
    </dl>
  );
}

/**
 * The exact lines the agent wants to apply beside the evidence it rests on, and the decision:
 * Approve / Deny in the tray only.
 */
export function ApprovalPanel({ incident, bridge, timeline = [] }: { incident: IncidentSummary; bridge: Bridge; timeline?: TimelineEntry[] }) {
  const request = incident.approval_request;
  const approval = incident.approval;
  // A plan is shown grouped by device, as the relay grouped it; one device keeps its single block.
  const plan = incident.plan_view;
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  if (!request && !approval) return null;

  const pending = incident.state === 'awaiting_approval' && !approval;
  const decide = async (decision: 'APPROVED' | 'DENIED') => {
    setBusy(true);
    setResult(null);
    try {
      setResult(outcomeText(await bridge.decide(incident.incident_id, request?.request_id ?? '', decision, reason.trim() || undefined)));
    } catch (error) {
      setResult(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className={`panel approval${pending ? ' pending' : ''}`} aria-label="Approval">
      <h3>{pending ? 'Approval needed' : 'Approval'}</h3>
      {request ? (
        <>
          <RequestFacts request={request} plan={plan} pending={pending} timeline={timeline} />
          <div className="approval-grid">
            {plan ? (
              <PlanGroups plan={plan} />
            ) : (
              <div>
                <Commands title="Commands" lines={request.commands} />
                <Preview preview={request.preview} />
                <Rollback lines={rollbackLines(request.preview)} />
              </div>
            )}
            <Evidence timeline={timeline} />
          </div>
          {/* The agent's own words come after the lines: a long summary never pushes them out of sight. */}
          <AgentText label={AGENT_SUMMARY_LABEL} text={request.summary} />
        </>
      ) : null}
      {approval ? (
        <p className={`decision decision-${approval.effective.toLowerCase()}`}>
          <strong>{approval.decision === approval.effective ? approval.decision : `${approval.decision} (treated as ${approval.effective})`}</strong> by{' '}
          {approval.by} via {approval.channel} at {utcStamp(approval.at)}
          {approval.reason ? ` — ${approval.reason}` : ''}
        </p>
      ) : null}
      {pending && bridge.canDecide ? (
        <div className="decide">
          <input type="text" placeholder="Reason (optional)" aria-label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} />
          <button type="button" className="approve" disabled={busy} onClick={() => void decide('APPROVED')}>
            Approve
          </button>
          <button type="button" className="deny" disabled={busy} onClick={() => void decide('DENIED')}>
            Deny
          </button>
        </div>
      ) : null}
      {pending && !bridge.canDecide ? <p className="notice">Read-only view: sign in as an approver (the link npm run relay prints on its terminal) to approve or deny here.</p> : null}
      {result ? (
        <p className="notice" role="status">
          {result}
        </p>
      ) : null}
    </section>
  );
}
