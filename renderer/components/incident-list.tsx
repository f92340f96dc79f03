import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { IncidentSummary } from '../bridge/contract';
import { useNow } from '../lib/use-now';
import { approversOf, countByGroup, devicesOf, filterIncidents, GROUP_LABEL, NO_FILTER, OUTCOMES, STATE_GROUPS, TIME_RANGES, type IncidentFilter, type OutcomeFilter, type TimeRange } from '../state/incident-filter';
import { IncidentRow, ROW_HEIGHT } from './incident-row';

type SetFilter = (update: (f: IncidentFilter) => IncidentFilter) => void;

/** The state-group chips, each with its count; "needs me" stands out while it has any. */
function GroupChips({ filter, setFilter, counts }: { filter: IncidentFilter; setFilter: SetFilter; counts: ReturnType<typeof countByGroup> }) {
  return (
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
  );
}

/** One filter as a select: its label, the "any" choice, then the values. */
function FilterSelect({ label, value, any, options, onChange }: { label: string; value: string; any?: string; options: ReadonlyArray<readonly [string, string]>; onChange: (value: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {any !== undefined ? <option value="">{any}</option> : null}
      {options.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
}

const pairs = (values: readonly string[]) => values.map((v) => [v, v] as const);

/** Device, time, outcome and approver filters, the search, and how many rows match. */
function ListSearch({ incidents, shown, filter, setFilter }: { incidents: IncidentSummary[]; shown: number; filter: IncidentFilter; setFilter: SetFilter }) {
  const devices = useMemo(() => devicesOf(incidents), [incidents]);
  const approvers = useMemo(() => approversOf(incidents), [incidents]);
  return (
    <div className="list-search">
      <FilterSelect label="Device" value={filter.device} any="All devices" options={pairs(devices)} onChange={(device) => setFilter((f) => ({ ...f, device }))} />
      <FilterSelect label="Raised" value={filter.since} options={Object.entries(TIME_RANGES)} onChange={(since) => setFilter((f) => ({ ...f, since: since as TimeRange }))} />
      <FilterSelect label="Outcome" value={filter.outcome} any="Any outcome" options={pairs(OUTCOMES)} onChange={(outcome) => setFilter((f) => ({ ...f, outcome: outcome as OutcomeFilter }))} />
      <FilterSelect label="Approver" value={filter.approver} any="Anyone decided" options={pairs(approvers)} onChange={(approver) => setFilter((f) => ({ ...f, approver }))} />
      <input
        type="search"
        placeholder="Search id, device, neighbor"
        aria-label="Search incidents by id, device or neighbor"
        value={filter.query}
        onChange={(e) => setFilter((f) => ({ ...f, query: e.target.value }))}
      />
      <span className="dim small" aria-live="polite">
        {shown === incidents.length ? `${incidents.length}` : `${shown} of ${incidents.length}`}
      </span>
    </div>
  );
}

/** The rows in view only, so thousands stay fast; arrow keys move between rows, Home/End jump. */
function VirtualRows({ shown, total, loaded, selectedId, now }: { shown: IncidentSummary[]; total: number; loaded: boolean; selectedId?: string | undefined; now: Date }) {
  const scroller = useRef<HTMLDivElement>(null);
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
    <div className="list-scroll" ref={scroller} onKeyDown={onKeyDown}>
      {!loaded ? (
        <p className="empty">Loading incidents…</p>
      ) : shown.length === 0 ? (
        <p className="empty">{total === 0 ? 'No incidents yet. Alerts posted to /fault-alert appear here at once.' : 'No incident matches the filter.'}</p>
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
  );
}

/**
 * Every incident, what needs a person first; filters by state group and device, search by id, device
 * or neighbor. Only the rows in view are in the DOM, so thousands stay fast. Arrow keys move between
 * rows, Home/End jump, Enter opens (rows are links).
 */
export function IncidentList(props: { incidents: IncidentSummary[]; loaded: boolean; selectedId?: string; loadOlder?: () => void }) {
  const { incidents, loaded, selectedId, loadOlder } = props;
  const [filter, setFilter] = useState<IncidentFilter>(NO_FILTER);
  const now = useNow();
  const shown = useMemo(() => filterIncidents(incidents, filter, now.getTime()), [incidents, filter, now]);
  const counts = useMemo(() => countByGroup(incidents), [incidents]);

  return (
    <section className="incident-list" aria-label="Incidents">
      <div className="list-tools">
        <GroupChips filter={filter} setFilter={setFilter} counts={counts} />
        <ListSearch incidents={incidents} shown={shown.length} filter={filter} setFilter={setFilter} />
      </div>
      <div className="list-head" aria-hidden="true">
        <span className="col-state">state</span>
        <span className="col-device">device · neighbor</span>
        <span className="col-sev">severity</span>
        <span className="col-age">age</span>
        <span className="col-occ">occ.</span>
      </div>
      <VirtualRows shown={shown} total={incidents.length} loaded={loaded} selectedId={selectedId} now={now} />
      {loadOlder ? (
        <button type="button" className="chip load-older" onClick={loadOlder}>
          Load older finished incidents
        </button>
      ) : null}
    </section>
  );
}
