import { progressLine } from '../../src/core/incidents/progress-line';
import { outcomeLabel } from '../../src/core/approvals/inert-text';
import { AgentText } from './agent-text';
import { useNow } from '../lib/use-now';
import { useEffect, useState } from 'react';
import type { TimelineEntry } from '../../src/core/incidents/model';
import type { Bridge, IncidentDetail, IncidentSummary } from '../bridge/contract';
import type { LiveFeed } from '../state/live-feed';
import { mergeTimeline } from '../state/timeline-merge';
import { utcStamp } from '../lib/format';
import { ApprovalPanel } from './approval-panel';
import { PagingPanel } from './paging-panel';
import { IncidentActions } from './incident-actions';
import { ChangePanel } from './change-panel';
import { HeldPanel } from './held-panel';
import { CHANGE_WORDS_TITLE, changeWords } from '../../src/core/incidents/outcome-words';
import { ExportEvidence } from './export-evidence';
import { SessionLog } from './session-log';
import { StateBadge } from './state-badge';
import { Timeline } from './timeline';
import { auditLine, auditViewOf } from '../../src/adapters/audit/audited-entries';
import { errorText } from '../../src/core/error-body';

type Tab = 'timeline' | 'log' | 'alert';

/** Whether the incident's audit events reached the team's SIEM (nothing when no SIEM reported on it). */
export function AuditStatus({ timeline }: { timeline: readonly TimelineEntry[] }) {
  const view = auditViewOf(timeline);
  const line = auditLine(view);
  return line ? (
    <p className={`audit-status audit-${view.state}`} aria-label="Audit delivery">
      {line}
    </p>
  ) : null;
}

function Fact({ k, v, mono }: { k: string; v: string; mono?: boolean }) {
  return (
    <span className="fact">
      <span className="k">{k}</span>
      <span className={mono ? 'v mono' : 'v'}>{v}</span>
    </span>
  );
}

export function Header({ incident }: { incident: IncidentSummary }) {
  const now = useNow();
  return (
    <header className="incident-header">
      <div className="title-line">
        <h2>
          {incident.device_hostname} <span className="mono dim">{incident.alert_def_id}</span>
        </h2>
        <StateBadge state={incident.state} />
      </div>
      <div className="facts inline">
        <Fact k="incident" v={incident.incident_id} mono />
        <Fact k="session" v={incident.session_id ?? '—'} mono />
        <Fact k="mode" v={incident.mode} />
        <Fact k="created" v={utcStamp(incident.created_at)} />
        <Fact k="occurrences" v={incident.occurrences > 1 ? `${incident.occurrences} (last ${utcStamp(incident.last_seen)})` : '1'} />
      </div>
      {!['resolved', 'escalated', 'failed'].includes(incident.state) ? (
        <p className="progress-line" aria-label="Progress">
          {progressLine(incident, now).replace(/^[^:]+: /, '')}
        </p>
      ) : null}
      {incident.warnings.length ? (
        <ul className="warnings" aria-label="Warnings">
          {incident.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
      {incident.outcome ? (
        <p className={`outcome outcome-${incident.outcome.kind}`}>
          <strong>{incident.outcome.kind}</strong> at {utcStamp(incident.outcome.at)}
        </p>
      ) : null}
      {incident.outcome ? (
        <>
          <p className="outcome-change" aria-label={CHANGE_WORDS_TITLE}>
            {CHANGE_WORDS_TITLE}: {changeWords(incident)}
          </p>
          <AgentText label={outcomeLabel(incident.outcome)} text={incident.outcome.summary} />
        </>
      ) : null}
    </header>
  );
}

/** One incident: its facts, the approval, and the live timeline or the session log. */
export function IncidentView(props: { bridge: Bridge; feed: LiveFeed; incidentId: string; summary?: IncidentSummary }) {
  const { bridge, feed, incidentId, summary } = props;
  const [detail, setDetail] = useState<IncidentDetail | undefined>();
  const [live, setLive] = useState<TimelineEntry[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [tab, setTab] = useState<Tab>('timeline');

  useEffect(() => {
    setDetail(undefined);
    setLive([]);
    setError(undefined);
    let current = true;
    // Listen before fetching: an entry written meanwhile is in one or the other, or both (merged).
    const off = feed.listen((event) => {
      if (event.type === 'incident.timeline' && event.incident_id === incidentId) setLive((l) => [...l, event.entry]);
    });
    bridge.getIncident(incidentId).then(
      (d) => current && setDetail(d),
      (e: unknown) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
      off();
    };
  }, [bridge, feed, incidentId]);

  // The list's copy is the live one; the fetched detail may be older.
  const incident: IncidentSummary | undefined = summary && detail && summary.updated_at >= detail.updated_at ? summary : (detail ?? summary);
  if (error && !incident) return <section className="incident-view"><p className="error-text">{error}</p></section>;
  if (!incident) return <section className="incident-view"><p className="empty">Loading {incidentId}…</p></section>;
  const timeline = mergeTimeline(detail?.timeline ?? [], live);

  return (
    <section className="incident-view" aria-label={`Incident ${incident.incident_id}`}>
      {/* On a narrow screen the list gives way to the incident: this is the way back. */}
      <a className="back-to-list" href="#/incidents">
        ← All incidents
      </a>
      <Header incident={incident} />
      <ExportEvidence bridge={bridge} incidentId={incident.incident_id} />
      <AuditStatus timeline={timeline} />
      <PagingPanel timeline={timeline} />
      <IncidentActions bridge={bridge} incident={incident} timeline={timeline} />
      <ApprovalPanel incident={incident} bridge={bridge} timeline={timeline} />
      <HeldPanel incident={incident} timeline={timeline} />
      <ChangePanel incident={incident} bridge={bridge} />
      <div className="tabs" role="tablist">
        {(['timeline', 'log', 'alert'] as const).map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
            {t === 'timeline' ? `Timeline (${timeline.length})` : t === 'log' ? 'Session log' : 'Alert'}
          </button>
        ))}
      </div>
      <div className="tab-body">
        {tab === 'timeline' ? detail ? <Timeline entries={timeline} /> : <p className="empty">Loading the timeline…</p> : null}
        {tab === 'log' ? <SessionLog bridge={bridge} incidentId={incident.incident_id} version={incident.updated_at} /> : null}
        {tab === 'alert' ? (
          <dl className="facts vars">
            {Object.entries(incident.alert_vars)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, v]) => (
                <div key={k} className="var-row">
                  <dt className="mono">{k}</dt>
                  <dd className="mono">{v}</dd>
                </div>
              ))}
          </dl>
        ) : null}
      </div>
    </section>
  );
}
