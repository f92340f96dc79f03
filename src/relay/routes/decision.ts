import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DecideFn } from '../../approvals/approvals';
import type { OperatorDirectory } from '../../operators/operators';
import { HttpError } from '../errors';
import { approverOf } from './approver-token';
import type { UiSession } from '../ui-session';

const bodySchema = z.strictObject({
  /** The request the person was shown (`approval_request.request_id`): a decision is for that request only. */
  request_id: z.string().min(1).max(64),
  decision: z.enum(['APPROVED', 'DENIED'], { error: 'APPROVED or DENIED' }),
  comment: z.string().max(500).optional(),
});

/**
 * `POST /incidents/:id/decision`: a person decides with their own token, from anywhere the relay is
 * reachable, or from /ui with their own session (channel `ui`). Approvers only; the first decision wins.
 */
export const decisionRoutes: FastifyPluginAsyncZod<{ approvals: { decide: DecideFn }; operators?: OperatorDirectory; session?: UiSession }> = async (app, opts) => {
  app.post(
    '/incidents/:incident_id/decision',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), body: bodySchema } },
    async (request, reply) => {
      const operator = approverOf(request, opts.operators, 'Decisions', opts.session);
      const { decision, comment, request_id } = request.body;
      // A bearer is a script or the tray's team mode; no bearer means the person's /ui session.
      const channel = request.headers.authorization === undefined ? 'ui' : 'api';
      const result = await opts.approvals.decide(request.params.incident_id, decision, { id: operator.email, display: operator.name }, channel, comment, request_id);
      switch (result.status) {
        case 'accepted':
          return reply.code(200).send({ status: 'accepted', incident_id: request.params.incident_id, request_id, decision, by: result.approval.by, channel });
        case 'stale_request':
          return reply.code(409).send(staleRequestBody(result.request_id, result.pending_request_id));
        case 'unknown_incident':
          throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
        case 'already_decided': {
          const a = result.approval;
          // The usual error body, and who decided in fields a client can show without parsing the sentence.
          return reply.code(409).send({
            error: { code: 'already_decided', message: `Already ${a.decision} by ${a.by} via ${a.channel} at ${a.at}.` },
            decided: { decision: a.decision, by: a.by, channel: a.channel, at: a.at },
          });
        }
        case 'not_awaiting':
          throw new HttpError(409, 'not_awaiting', `Nothing to decide: ${request.params.incident_id} is ${result.incident.state}.`);
      }
    },
  );
};

/** 409 for a decision on a request that is not the pending one: names the request it was for, and the one pending. */
export function staleRequestBody(requestId: string, pendingRequestId: string | null) {
  return {
    error: {
      code: 'stale_request',
      message: `That decision was for request ${requestId}, which is no longer awaiting a decision${pendingRequestId ? `; request ${pendingRequestId} is pending now: look at it before you decide` : ''}. Nothing changed.`,
    },
    request_id: requestId,
    pending_request_id: pendingRequestId,
  };
}
