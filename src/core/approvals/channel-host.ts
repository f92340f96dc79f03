import type { Logger } from 'pino';
import type { Incidents } from '../incidents/service';
import type { Approvals } from './approvals';
import { channelDecisionSchema, type ChannelHost, type OperatorChannel } from './operator-channel';
import type { DecideFn } from './types';

/**
 * The relay's side of the port: every channel's decisions go through the one `decide` (on a team
 * relay, the database's first-wins one), checked at this edge because an adapter's payload is
 * outside input until proven otherwise.
 */
export function createChannelHost(deps: {
  approvals: Pick<Approvals, 'pending' | 'acknowledge'>;
  decide: DecideFn;
  incidents: Pick<Incidents, 'get'>;
  channels: readonly OperatorChannel[];
  logger: Logger;
}): ChannelHost {
  const { approvals, decide, incidents, channels, logger } = deps;
  const names = new Set(channels.map((c) => c.name));
  return {
    async decide(input) {
      const d = channelDecisionSchema.parse(input);
      // Only a registered adapter speaks for people; a name nobody registered is a wiring bug, not a decision.
      if (!names.has(d.channel)) throw new Error(`no operator channel named ${d.channel} is registered`);
      const result = await decide(d.incident_id, d.decision, { id: d.person.id, ...(d.person.display ? { display: d.person.display } : {}) }, d.channel, d.reason, d.request_id);
      if (result.status === 'accepted') {
        await approvals.acknowledge(result.incident.incident_id).catch((error: unknown) => logger.error({ err: error }, 'could not acknowledge a decision'));
      }
      return result;
    },
    incident: (id) => incidents.get(id),
    pending: () => approvals.pending(),
  };
}
