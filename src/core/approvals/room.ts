import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import type { OperatorChannel } from './operator-channel';
import { entries } from '../events/timeline-entries';
import { errorText } from '../error-body';

/**
 * What the relay says on every operator channel: notices, and a decision's outcome. A channel that
 * fails is named in the timeline; the others still get it.
 */
export function createRoom(deps: { channels: readonly OperatorChannel[]; incidents: Incidents; clock: Clock; logger: Logger }) {
  const { channels, incidents, clock, logger } = deps;
  const tellRoom = (incidentId: string, markdown: string) => {
    for (const channel of channels) {
      channel.tell(markdown).catch((error: unknown) => {
        logger.error({ incident_id: incidentId, channel: channel.name, err: error }, 'could not post to the operator channel');
        incidents.record(incidentId, entries.roomError, `Could not post to the room${channels.length > 1 ? ` (${channel.name})` : ''}: ${errorText(error)}`);
      });
    }
  };

  /**
   * Shows a channel decision's outcome on every operator channel and records that it was shown.
   * All of them: the people on the other channels must not go on deciding a request already decided.
   */
  async function acknowledge(incidentId: string): Promise<void> {
    const incident = incidents.get(incidentId);
    if (channels.length === 0 || !incident?.approval || incident.approval.acknowledged_at) return;
    const approval = incident.approval;
    const results = await Promise.allSettled(channels.map((c) => c.acknowledge(incident, approval)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    // Left unrecorded, recover() tries again after a restart.
    if (failed) throw failed.reason;
    const at = clock.now().toISOString();
    incidents.update(incidentId, (cur) => ({ approval: cur.approval ? { ...cur.approval, acknowledged_at: at } : cur.approval }));
  }
  return { tellRoom, acknowledge };
}
