import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OperatorDirectory } from '../../core/operators/operators';
import { HandlingRefused, type IncidentHandling } from '../../core/incidents/incident-handling';
import { HttpError } from '../errors';
import { errorResponses } from '../../core/error-body';
import { approverOf } from './approver-token';
import type { UiSession } from '../ui-session';

/** Where a person acted from: the API (their token), /ui (their session) or the tray. */
const channelSchema = z.enum(['api', 'ui', 'tray']).optional();
const params = z.object({ incident_id: z.string().min(1).max(64) });
const base = { incident_id: z.string(), by: z.string() };
const acknowledged = z.object({ status: z.literal('acknowledged'), ...base, channel: z.string(), at: z.string(), already: z.boolean().optional() });
const assigned = z.object({ status: z.literal('assigned'), ...base, to: z.string(), to_email: z.string(), at: z.string() });
const closed = z.object({ status: z.literal('closed'), ...base, reason: z.string(), at: z.string() });
const retried = z.object({ status: z.enum(['retried', 'already_open']), ...base, new_incident_id: z.string() });

const refusedAsHttp = (error: unknown): never => {
  if (error instanceof HandlingRefused) throw new HttpError(error.status, error.code, error.message);
  throw error;
};

/**
 * What a person does with an incident besides deciding its approval, with their own token
 * (approvers only; viewers 403) or their /ui session. Each is one timeline entry every relay, the
 * tray and /ui see: `incident.acknowledged` (the escalation chain stops and the page is
 * acknowledged; a second acknowledgement answers who took it first), `incident.assigned` (to a
 * person in OPERATORS_FILE), `incident.closed` (a finished run, with a reason), `incident.retried`
 * (a failed or escalated run, started again as a new incident from the same fault).
 */
export const incidentActionRoutes: FastifyPluginAsyncZod<{ handling: IncidentHandling; operators?: OperatorDirectory; session?: UiSession }> = async (app, opts) => {
  const { handling } = opts;
  const person = (request: Parameters<typeof approverOf>[0], action: string) => approverOf(request, opts.operators, action, opts.session);
  const channelOf = (request: { headers: { authorization?: string } }, given?: string) => given ?? (request.headers.authorization ? 'api' : 'ui');

  app.post('/incidents/:incident_id/acknowledge', { schema: { params, body: z.strictObject({ channel: channelSchema }).optional(), response: { 200: acknowledged, ...errorResponses } } }, async (request) => {
    const operator = person(request, 'Acknowledgements');
    try {
      return handling.acknowledge(request.params.incident_id, operator, channelOf(request, request.body?.channel));
    } catch (error) {
      return refusedAsHttp(error);
    }
  });

  app.post('/incidents/:incident_id/assign', { schema: { params, body: z.strictObject({ to: z.email(), channel: channelSchema }), response: { 200: assigned, ...errorResponses } } }, async (request) => {
    const operator = person(request, 'Assignments');
    try {
      return handling.assign(request.params.incident_id, operator, request.body.to);
    } catch (error) {
      return refusedAsHttp(error);
    }
  });

  app.post(
    '/incidents/:incident_id/close',
    { schema: { params, body: z.strictObject({ reason: z.string().trim().min(1, 'say why it is closed').max(1000), channel: channelSchema }), response: { 200: closed, ...errorResponses } } },
    async (request) => {
      const operator = person(request, 'Closing incidents');
      try {
        return handling.close(request.params.incident_id, operator, request.body.reason);
      } catch (error) {
        return refusedAsHttp(error);
      }
    },
  );

  app.post('/incidents/:incident_id/retry', { schema: { params, body: z.strictObject({ channel: channelSchema }).optional(), response: { 202: retried, ...errorResponses } } }, async (request, reply) => {
    const operator = person(request, 'Retries');
    try {
      return reply.code(202).send(await handling.retry(request.params.incident_id, operator));
    } catch (error) {
      return refusedAsHttp(error);
    }
  });
};
