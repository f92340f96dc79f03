import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Incidents } from '../../incidents/service';
import { publicIncident } from '../../incidents/model';
import { HttpError } from '../errors';

export const sessionsRoutes: FastifyPluginAsyncZod<{ incidents: Incidents }> = async (app, { incidents }) => {
  app.get('/sessions', async () => {
    const out: Record<string, ReturnType<typeof publicIncident>> = {};
    for (const incident of incidents.list()) out[incident.incident_id] = publicIncident(incident);
    return out;
  });

  app.get(
    '/sessions/:incident_id',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }) } },
    async (request) => {
      const incident = incidents.get(request.params.incident_id);
      if (!incident) throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
      return { ...publicIncident(incident), timeline: incidents.timeline(incident.incident_id) };
    },
  );
};
