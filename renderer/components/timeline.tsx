import type { TimelineEntry } from '../../src/incidents/model';
import { clockTime } from '../lib/format';
import { detailsOf, KIND_LABELS, kindOf } from './timeline-kind';

function Entry({ entry }: { entry: TimelineEntry }) {
  const kind = kindOf(entry);
  const agent = typeof entry.agent === 'string' ? entry.agent : undefined;
  const subagent = entry.subagent === true;
  const details = detailsOf(entry);
  return (
    <li className={`tl-entry kind-${kind}${subagent ? ' subagent' : ''}`} data-type={entry.type}>
      <time className="tl-time mono" dateTime={entry.at} title={entry.at}>
        {clockTime(entry.at)}
      </time>
      <span className="tl-kind">{KIND_LABELS[kind]}</span>
      <div className="tl-body">
        {agent && kind !== 'agent' ? <span className="tl-agent">{subagent ? `↳ ${agent}` : agent}</span> : null}
        <span className={kind === 'message' || kind === 'notify' ? 'tl-message prose' : 'tl-message'}>{entry.message}</span>
        {details.length ? (
          <details className="tl-details">
            <summary>{details.map((d) => d.label).join(', ')}</summary>
            {details.map((d) => (
              <div key={d.label}>
                <div className="dim small">{d.label}</div>
                <pre className="mono">{d.text}</pre>
              </div>
            ))}
          </details>
        ) : null}
      </div>
    </li>
  );
}

/** The run as it happens: agent and subagent steps, tool calls, messages, approval, outcome. */
export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  if (entries.length === 0) return <p className="empty">Nothing has happened yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {entries.map((e, i) => (
        <Entry key={`${e.at}|${e.type}|${i}`} entry={e} />
      ))}
    </ol>
  );
}
