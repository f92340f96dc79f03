import type { TimelineEntry } from '../../src/core/incidents/model';
import { clockTime } from '../lib/format';
import { AgentText } from './agent-text';
import { groupTimeline, type TimelineRow } from '../state/timeline-group';
import { detailsOf, KIND_LABELS, kindOf } from './timeline-kind';
import { entries, isEntry } from '../../src/core/events/timeline-entries';

function Details({ entries }: { entries: TimelineEntry[] }) {
  const details = entries.flatMap(detailsOf);
  if (!details.length) return null;
  return (
    <details className="tl-details">
      <summary>{details.map((d) => d.label).join(', ')}</summary>
      {details.map((d, i) => (
        <div key={`${d.label}${i}`}>
          <div className="dim small">{d.label}</div>
          {/* Whole, scrollable: command output is evidence, never cut to its first line. */}
          <pre className="mono tl-output" tabIndex={0}>
            {d.text}
          </pre>
        </div>
      ))}
    </details>
  );
}

function Row({ row }: { row: TimelineRow }) {
  const entry = row.kind === 'entry' ? row.entry : (row.end ?? row.start);
  const first = row.kind === 'entry' ? row.entry : row.start;
  const kind = row.kind === 'tool' && row.end !== undefined && isEntry(row.end, entries.toolError) ? 'error' : kindOf(entry);
  const agent = typeof first.agent === 'string' ? first.agent : undefined;
  const subagent = first.subagent === true;
  // What the agent wrote (its messages, notices, its reported outcome) is shown as its quoted text, never in the relay's styles.
  const prose = row.kind === 'entry' && (kind === 'message' || kind === 'notify' || isEntry(entry, entries.outcomeReported));
  const message =
    row.kind === 'tool'
      ? `${String(first.tool ?? 'tool')} ${row.end ? (isEntry(row.end, entries.toolError) ? 'failed' : 'done') : 'running…'}${row.durationMs !== undefined ? ` (${row.durationMs < 1000 ? `${row.durationMs} ms` : `${(row.durationMs / 1000).toFixed(1)} s`})` : ''}`
      : entry.message;
  return (
    <li className={`tl-entry kind-${kind}${subagent ? ' subagent' : ''}`} data-type={entry.type}>
      <time className="tl-time mono" dateTime={first.at} title={first.at}>
        {clockTime(first.at)}
      </time>
      <span className="tl-kind">{KIND_LABELS[kind]}</span>
      <div className="tl-body">
        {agent && kind !== 'agent' ? <span className="tl-agent">{subagent ? `↳ ${agent}` : agent}</span> : null}
        {prose ? <AgentText text={message} /> : <span className="tl-message">{message}</span>}
        {row.kind === 'entry' && row.repeats > 1 ? <span className="dim small"> ×{row.repeats}</span> : null}
        <Details entries={row.kind === 'tool' ? [row.start, ...(row.end && row.end !== row.start ? [row.end] : [])] : [row.entry]} />
      </div>
    </li>
  );
}

/** The run as it happens: agent and subagent steps, tool calls (start and end in one row), messages, approval, outcome. */
export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  if (entries.length === 0) return <p className="empty">Nothing has happened yet.</p>;
  const rows = groupTimeline(entries);
  return (
    <ol className="timeline" aria-label="Timeline">
      {rows.map((row, i) => (
        <Row key={`${(row.kind === 'entry' ? row.entry : row.start).at}|${i}`} row={row} />
      ))}
    </ol>
  );
}
