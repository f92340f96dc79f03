import type { Logger } from 'pino';
import type { Incidents } from '../incidents/service';
import type { Approvals } from './approvals';
import { channelDecisionSchema, type ChannelHost, type OperatorChannel } from './operator-channel';
import type { DecideFn } from './decision-command';

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
      // The channel vouched for the person after its own allow-list check.
      const who = { id: d.person.id, ...(d.person.display ? { display: d.person.display } : {}), authenticated_by: 'channel' as const };
      const result = await decide({ incident_id: d.incident_id, request_id: d.request_id, decision: d.decision, who, channel: d.channel, ...(d.reason !== undefined ? { reason: d.reason } : {}) });
      if (result.status === 'accepted') {
        await approvals.acknowledge(result.incident.incident_id).catch((error: unknown) => logger.error({ err: error }, 'could not acknowledge a decision'));
      }
      return result;
    },
    incident: (id) => incidents.get(id),
    pending: () => approvals.pending(),
  };
}
