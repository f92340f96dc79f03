import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OperatorDirectory } from '../../operators/operators';
import type { Incidents } from '../../incidents/service';
import { HttpError } from '../errors';
import { approverOf } from './approver-token';
import type { UiSession } from '../ui-session';

/** Where a person acknowledged from: the API (their token), /ui (their session) or the tray. */
const bodySchema = z.strictObject({ channel: z.enum(['api', 'ui', 'tray']).optional() }).optional();

/** Who acknowledged an incident first, from its timeline; undefined while nobody has. */
export function acknowledgementOf(timeline: readonly { type: string; at: string; by?: unknown; channel?: unknown }[]) {
  const entry = timeline.find((e) => e.type === 'incident.acknowledged');
  return entry ? { by: String(entry.by ?? ''), channel: String(entry.channel ?? ''), at: entry.at } : undefined;
}

/**
 * `POST /incidents/:id/acknowledge`: a person takes an incident on, with their own token (approvers
 * only) or their /ui session. The timeline says `incident.acknowledged` {by, channel}; the
 * escalation chain stops and the page is acknowledged on the pager (src/paging/ follows the
 * timeline). A second acknowledgement answers who took it first.
 */
export const incidentActionRoutes: FastifyPluginAsyncZod<{ incidents: Incidents; operators?: OperatorDirectory; session?: UiSession }> = async (app, opts) => {
  app.post(
    '/incidents/:incident_id/acknowledge',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), body: bodySchema } },
    async (request, reply) => {
      const operator = approverOf(request, opts.operators, 'Acknowledgements', opts.session);
      const { incident_id } = request.params;
      if (!opts.incidents.get(incident_id)) throw new HttpError(404, 'not_found', `No incident ${incident_id}`);
      const earlier = acknowledgementOf(opts.incidents.timeline(incident_id));
      if (earlier) return reply.code(200).send({ status: 'acknowledged', incident_id, ...earlier, already: true });
      const channel = request.body?.channel ?? (request.headers.authorization ? 'api' : 'ui');
      const entry = opts.incidents.record(incident_id, 'incident.acknowledged', `Acknowledged by ${operator.name} (${channel}): pages stop`, { by: operator.name, channel });
      return reply.code(200).send({ status: 'acknowledged', incident_id, by: operator.name, channel, at: entry.at });
    },
  );
};
