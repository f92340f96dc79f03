import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Incidents } from '../../incidents/service';
import { publicIncident } from '../../incidents/model';
import { HttpError } from '../errors';

/** The largest timeline page: a long run's detail stays a few hundred kilobytes per request. */
export const MAX_PAGE = 1000;

export const sessionsRoutes: FastifyPluginAsyncZod<{ incidents: Incidents }> = async (app, { incidents }) => {
  app.get('/sessions', async () => {
    const out: Record<string, ReturnType<typeof publicIncident>> = {};
    for (const incident of incidents.list()) out[incident.incident_id] = publicIncident(incident);
    return out;
  });

  // The timeline in pages: `offset` (from the start) and `limit`; `next_offset` says where the next page starts.
  app.get(
    '/sessions/:incident_id',
    {
      schema: {
        params: z.object({ incident_id: z.string().min(1).max(64) }),
        querystring: z.object({
          offset: z.coerce.number().int().min(0).default(0),
          limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
        }),
      },
    },
    async (request) => {
      const incident = incidents.get(request.params.incident_id);
      if (!incident) throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
      const { offset, limit } = request.query;
      const all = await incidents.loadTimeline(incident.incident_id);
      const timeline = all.slice(offset, offset + limit);
      const next = offset + timeline.length;
      return { ...publicIncident(incident), timeline, timeline_total: all.length, next_offset: next < all.length ? next : null };
    },
  );
};
