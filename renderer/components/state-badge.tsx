import type { IncidentSummary } from '../bridge/contract';
import { STATE_LABELS } from '../lib/format';

export function StateBadge({ state }: { state: IncidentSummary['state'] }) {
  return <span className={`badge state-${state}`}>{STATE_LABELS[state]}</span>;
}
