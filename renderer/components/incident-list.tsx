import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import type { IncidentSummary } from '../bridge/contract';
import { useNow } from '../lib/use-now';
import { IncidentRow, ROW_HEIGHT } from './incident-row';

const TERMINAL = new Set(['resolved', 'escalated', 'failed']);

function matches(i: IncidentSummary, query: string): boolean {
  if (!query) return true;
  const q = query.toLowerCase();
  return [i.incident_id, i.device_hostname, i.alert_def_id, i.state].some((v) => v.toLowerCase().includes(q));
}

/** Every incident, newest first; only the rows in view are in the DOM, so thousands stay fast. */
export function IncidentList(props: { incidents: IncidentSummary[]; loaded: boolean; selectedId?: string }) {
  const { incidents, loaded, selectedId } = props;
  const [query, setQuery] = useState('');
  const [openOnly, setOpenOnly] = useState(false);
  const now = useNow();
  const scroller = useRef<HTMLDivElement>(null);

  const shown = useMemo(
    () => incidents.filter((i) => (!openOnly || !TERMINAL.has(i.state)) && matches(i, query.trim())),
    [incidents, openOnly, query],
  );
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => shown[index]?.incident_id ?? index,
  });

  return (
    <section className="incident-list" aria-label="Incidents">
      <div className="list-tools">
        <input
          type="search"
          placeholder="Filter by device, alert, id, state"
          aria-label="Filter incidents"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <label className="toggle">
          <input type="checkbox" checked={openOnly} onChange={(e) => setOpenOnly(e.target.checked)} /> open only
        </label>
        <span className="dim small" aria-live="polite">
          {shown.length === incidents.length ? `${incidents.length}` : `${shown.length} of ${incidents.length}`}
        </span>
      </div>
      <div className="list-head" aria-hidden="true">
        <span className="col-state">state</span>
        <span className="col-device">device</span>
        <span className="col-alert">alert</span>
        <span className="col-age">age</span>
        <span className="col-occ">occ.</span>
      </div>
      <div className="list-scroll" ref={scroller}>
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
                  <IncidentRow incident={incident} now={now} selected={incident.incident_id === selectedId} top={row.start} />
                </div>
              );
            })}
          </div>
        )}
      </div>
    </section>
  );
}
