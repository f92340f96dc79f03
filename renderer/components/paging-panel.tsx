import type { TimelineEntry } from '../../src/core/incidents/model';
import { utcStamp } from '../lib/format';
import { entries, isEntry } from '../../src/core/events/timeline-entries';

const PAGER_WORDS: Record<string, string> = { pagerduty: 'PagerDuty', opsgenie: 'Opsgenie', remind: 'the operator channels' };
const ACTION_WORDS: Record<string, string> = { trigger: 'paged', acknowledge: 'page acknowledged in', resolve: 'page resolved in', remind: 'reminded' };

/** Who took the incident on (`incident.acknowledged`), and who was paged when (`page.sent` / `page.failed`). */
export function PagingPanel({ timeline }: { timeline: readonly TimelineEntry[] }) {
  const ack = timeline.find((e) => isEntry(e, entries.incidentAcknowledged));
  const pages = timeline.filter((e) => isEntry(e, entries.pageSent) || isEntry(e, entries.pageFailed));
  if (!ack && pages.length === 0) return null;
  return (
    <section className="paging-panel" aria-label="Paging">
      {ack ? (
        <p className="acknowledged">
          Acknowledged by <strong>{String(ack.by ?? '')}</strong> ({String(ack.channel ?? '')}) at {utcStamp(ack.at)}
        </p>
      ) : null}
      {pages.length ? (
        <ul className="pages">
          {pages.map((e) => {
            const pager = PAGER_WORDS[String(e.pager)] ?? String(e.pager);
            const action = e.pager === 'remind' ? 'reminded' : (ACTION_WORDS[String(e.action)] ?? 'paged');
            return (
              <li key={`${e.at}-${String(e.pager)}-${String(e.step)}-${String(e.action)}`} className={isEntry(e, entries.pageFailed) ? 'error-text' : undefined}>
                {utcStamp(e.at)}: {action} {pager}
                {typeof e.to === 'string' && e.to ? ` (${e.to})` : ''}
                {isEntry(e, entries.pageFailed) ? `: failed, ${String(e.reason ?? '')}` : ''}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
