import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DecideResult } from '../../core/approvals/approvals';
import type { DecideFn } from '../../core/approvals/decision-command';
import { policyNotice, standingWords } from '../../core/approvals/standing';
import type { OperatorDirectory } from '../../core/operators/operators';
import { HttpError } from '../errors';
import { approverOf } from './approver-token';
import type { UiSession } from '../ui-session';
import { answersAndErrors, errorBody } from '../../core/error-body';

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
export const decisionRoutes: FastifyPluginAsyncZod<{ decide: DecideFn; operators?: OperatorDirectory; session?: UiSession }> = async (app, opts) => {
  app.post(
    '/incidents/:incident_id/decision',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), body: bodySchema, response: answersAndErrors } },
    async (request, reply) => {
      const operator = approverOf(request, opts.operators, 'Decisions', opts.session);
      const { decision, comment, request_id } = request.body;
      // A bearer is a script or the tray's team mode; no bearer means the person's /ui session.
      const bearer = request.headers.authorization !== undefined;
      const channel = bearer ? 'api' : 'ui';
      const who = { id: operator.email, display: operator.name, authenticated_by: bearer ? ('personal_token' as const) : ('ui_session' as const) };
      const result = await opts.decide({ incident_id: request.params.incident_id, request_id, decision, who, channel, ...(comment !== undefined ? { reason: comment } : {}) });
      switch (result.status) {
        case 'accepted':
          return reply.code(200).send({ status: 'accepted', incident_id: request.params.incident_id, request_id, decision, by: result.approval.by, channel, ...(result.standing ? { standing: standingWords(result.standing), given: result.standing.given, needed: result.standing.needed } : {}) });
        case 'recorded':
        case 'already_approved_by_you':
        case 'not_allowed_by_policy': {
          const answer = policyAnswer(result);
          return reply.code(answer.code).send(answer.body);
        }
        case 'stale_request':
          return reply.code(409).send(staleRequestBody(result.request_id, result.pending_request_id));
        case 'unknown_incident':
          throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
        case 'already_decided': {
          return reply.code(409).send(alreadyDecidedBody(result.approval));
        }
        case 'not_awaiting':
          throw new HttpError(409, 'not_awaiting', `Nothing to decide: ${request.params.incident_id} is ${result.incident.state}.`);
      }
    },
  );
};

/**
 * A decision under the change policy's requirement that did not decide the request: 202 counted
 * ("recorded: 1 of 2"), 409 `already_approved_by_you`, 403 `not_allowed_by_policy` naming the rule.
 */
export function policyAnswer(result: Extract<DecideResult, { status: 'recorded' | 'already_approved_by_you' | 'not_allowed_by_policy' }>): { code: 202 | 403 | 409; body: object } {
  const message = policyNotice(result);
  if (result.status === 'not_allowed_by_policy') return { code: 403, body: errorBody('not_allowed_by_policy', `${message[0]!.toUpperCase()}${message.slice(1)}`, { rule: result.rule, groups: result.groups }) };
  const standing = { standing: standingWords(result.standing), given: result.standing.given, needed: result.standing.needed };
  if (result.status === 'already_approved_by_you') return { code: 409, body: { ...errorBody('already_approved_by_you', `You approved this request already; it counts once: ${standing.standing}. Nothing changed.`), ...standing } };
  return { code: 202, body: { status: 'recorded', incident_id: result.incident.incident_id, request_id: result.incident.approval_request?.request_id, message: `Your approval ${message.replace(/^your approval /, '')}`, ...standing } };
}

/** 409 for a decision on a request that is not the pending one: names the request it was for, and the one pending. */
export function staleRequestBody(requestId: string, pendingRequestId: string | null) {
  return {
    ...errorBody(
      'stale_request',
      `That decision was for request ${requestId}, which is no longer awaiting a decision${pendingRequestId ? `; request ${pendingRequestId} is pending now: look at it before you decide` : ''}. Nothing changed.`,
    ),
    request_id: requestId,
    pending_request_id: pendingRequestId,
  };
}

/** 409 for a request decided already: the usual error body, and who decided in fields a client can show without parsing the sentence. */
export function alreadyDecidedBody(a: { decision: string; by: string; channel: string; at: string }) {
  return { ...errorBody('already_decided', `Already ${a.decision} by ${a.by} via ${a.channel} at ${a.at}.`), decided: { decision: a.decision, by: a.by, channel: a.channel, at: a.at } };
}
