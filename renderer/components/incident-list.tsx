import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { IncidentSummary } from '../bridge/contract';
import { useNow } from '../lib/use-now';
import { approversOf, countByGroup, devicesOf, filterIncidents, GROUP_LABEL, NO_FILTER, OUTCOMES, STATE_GROUPS, TIME_RANGES, type IncidentFilter, type OutcomeFilter, type TimeRange } from '../state/incident-filter';
import { IncidentRow, ROW_HEIGHT } from './incident-row';

/**
 * Every incident, what needs a person first; filters by state group and device, search by id, device
 * or neighbor. Only the rows in view are in the DOM, so thousands stay fast. Arrow keys move between
 * rows, Home/End jump, Enter opens (rows are links).
 */
export function IncidentList(props: { incidents: IncidentSummary[]; loaded: boolean; selectedId?: string; loadOlder?: () => void }) {
  const { incidents, loaded, selectedId, loadOlder } = props;
  const [filter, setFilter] = useState<IncidentFilter>(NO_FILTER);
  const now = useNow();
  const scroller = useRef<HTMLDivElement>(null);

  const shown = useMemo(() => filterIncidents(incidents, filter, now.getTime()), [incidents, filter, now]);
  const counts = useMemo(() => countByGroup(incidents), [incidents]);
  const devices = useMemo(() => devicesOf(incidents), [incidents]);
  const approvers = useMemo(() => approversOf(incidents), [incidents]);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => shown[index]?.incident_id ?? index,
  });

  /** Moves focus to row `index`, scrolling it into the rendered window first. */
  const focusRow = (index: number) => {
    const target = Math.max(0, Math.min(shown.length - 1, index));
    virtualizer.scrollToIndex(target);
    requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`[data-index="${target}"]`)?.focus());
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const current = Number((document.activeElement as HTMLElement | null)?.dataset.index ?? -1);
    const to = { ArrowDown: current + 1, ArrowUp: current - 1, Home: 0, End: shown.length - 1 }[e.key];
    if (to === undefined || shown.length === 0) return;
    e.preventDefault();
    focusRow(to);
  };

  return (
    <section className="incident-list" aria-label="Incidents">
      <div className="list-tools">
        <div className="group-filter" role="group" aria-label="Show">
          {STATE_GROUPS.map((g) => (
            <button
              key={g}
              type="button"
              className={`chip${filter.group === g ? ' on' : ''}${g === 'needs-me' && counts[g] > 0 ? ' attention' : ''}`}
              aria-pressed={filter.group === g}
              onClick={() => setFilter((f) => ({ ...f, group: g }))}
            >
              {GROUP_LABEL[g]} <span className="chip-count">{counts[g]}</span>
            </button>
          ))}
        </div>
        <div className="list-search">
          <select aria-label="Device" value={filter.device} onChange={(e) => setFilter((f) => ({ ...f, device: e.target.value }))}>
            <option value="">All devices</option>
            {devices.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
          <select aria-label="Raised" value={filter.since} onChange={(e) => setFilter((f) => ({ ...f, since: e.target.value as TimeRange }))}>
            {Object.entries(TIME_RANGES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <select aria-label="Outcome" value={filter.outcome} onChange={(e) => setFilter((f) => ({ ...f, outcome: e.target.value as OutcomeFilter }))}>
            <option value="">Any outcome</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
          <select aria-label="Approver" value={filter.approver} onChange={(e) => setFilter((f) => ({ ...f, approver: e.target.value }))}>
            <option value="">Anyone decided</option>
            {approvers.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          <input
            type="search"
            placeholder="Search id, device, neighbor"
            aria-label="Search incidents by id, device or neighbor"
            value={filter.query}
            onChange={(e) => setFilter((f) => ({ ...f, query: e.target.value }))}
          />
          <span className="dim small" aria-live="polite">
            {shown.length === incidents.length ? `${incidents.length}` : `${shown.length} of ${incidents.length}`}
          </span>
        </div>
      </div>
      <div className="list-head" aria-hidden="true">
        <span className="col-state">state</span>
        <span className="col-device">device · neighbor</span>
        <span className="col-sev">severity</span>
        <span className="col-age">age</span>
        <span className="col-occ">occ.</span>
      </div>
      <div className="list-scroll" ref={scroller} onKeyDown={onKeyDown}>
        {!loaded ? (
          <p className="empty">Loading incidents…</p>
        ) : shown.length === 0 ? (
          <p className="empty">{incidents.length === 0 ? 'No incidents yet. Alerts posted to /fault-alert appear here at once.' : 'No incident matches the filter.'}</p>
        ) : (
          <div className="list-body" role="list" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((row) => {
              const incident = shown[row.index] as IncidentSummary;
              return (
                <div role="listitem" key={row.key}>
                  <IncidentRow incident={incident} now={now} selected={incident.incident_id === selectedId} top={row.start} index={row.index} />
                </div>
              );
            })}
          </div>
        )}
      </div>
      {loadOlder ? (
        <button type="button" className="chip load-older" onClick={loadOlder}>
          Load older finished incidents
        </button>
      ) : null}
    </section>
  );
}
