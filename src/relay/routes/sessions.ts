import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Incidents } from '../../core/incidents/service';
import { publicIncident } from '../../core/incidents/model';
import { decodeCursor, finishedPage, MAX_ARCHIVE_PAGE, openAndRecent } from '../../core/incidents/incident-pages';
import { incidentQuerySchema, isEmptyQuery, matchesIncidentQuery } from '../../core/incidents/incident-query';
import { HttpError } from '../errors';
import { answersAndErrors } from '../../core/error-body';

/** The largest timeline page: a long run's detail stays a few hundred kilobytes per request. */
export const MAX_PAGE = 1000;

export const sessionsRoutes: FastifyPluginAsyncZod<{ incidents: Incidents }> = async (app, { incidents }) => {
  /**
   * Without a query: `{incident_id: incident}` of every open incident and the newest finished ones,
   * and `x-next-cursor` when older ones exist. With `cursor` and/or `limit`: a page of the finished
   * incidents older than the cursor, newest first, `{incidents, next_cursor}` (null on the last).
   * With any of `from`, `to`, `state`, `device`, `approver`, `outcome`: a page of every incident,
   * open or finished, that matches them all, in the same shape.
   */
  app.get(
    '/sessions',
    {
      schema: {
        querystring: incidentQuerySchema.extend({
          cursor: z.string().max(400).optional(),
          limit: z.coerce.number().int().min(1).max(MAX_ARCHIVE_PAGE).optional(),
        }),
        response: answersAndErrors,
      },
    },
    async (request, reply) => {
      const { cursor, limit, ...query } = request.query;
      const filtered = !isEmptyQuery(query);
      if (cursor === undefined && limit === undefined && !filtered) {
        const first = openAndRecent(incidents);
        if (first.next_cursor) void reply.header('x-next-cursor', first.next_cursor);
        const out: Record<string, ReturnType<typeof publicIncident>> = {};
        for (const incident of first.incidents) out[incident.incident_id] = publicIncident(incident);
        return out;
      }
      const after = cursor === undefined ? null : decodeCursor(cursor);
      if (cursor !== undefined && !after) throw new HttpError(400, 'invalid_cursor', 'cursor is not one this relay gave out (take it from next_cursor or x-next-cursor)');
      const page = filtered ? finishedPage(incidents.values(), after, limit ?? MAX_ARCHIVE_PAGE, (i) => matchesIncidentQuery(i, query)) : finishedPage(incidents.values(), after, limit ?? MAX_ARCHIVE_PAGE);
      return { incidents: page.incidents.map(publicIncident), next_cursor: page.next_cursor };
    },
  );

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
        response: answersAndErrors,
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
