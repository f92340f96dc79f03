import type { FastifyRequest } from 'fastify';
import type { Operator, OperatorDirectory } from '../../core/operators/operators';
import { HttpError } from '../errors';
import type { UiSession } from '../ui-session';

/** What only approvers do, by the action's name. */
const ONLY_APPROVERS: Record<string, string> = { Decisions: 'decide', Confirms: 'confirm changes', Acknowledgements: 'acknowledge incidents', Assignments: 'assign incidents', 'Closing incidents': 'close incidents', Retries: 'retry runs', 'Clearing a quarantined device': 'clear a quarantined device' };

/**
 * The person behind a human action over the API (a decision, a confirm): their own token, approvers
 * only. The runtime never holds such a token, so nothing the model can call gets past this.
 */
export function approverOf(request: FastifyRequest, operators: OperatorDirectory | undefined, action: string, session?: UiSession): Operator {
  if (!operators) {
    throw new HttpError(403, 'operators_not_configured', `${action} over the API needs OPERATORS_FILE: list the approvers and their token hashes, then restart the relay.`);
  }
  const token = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  // In /ui a person's own session cookie (made from their token, their role looked up now) stands in for it.
  const fromCookie = !token && session ? session.fromCookie(request) : undefined;
  const operator = token ? operators.byToken(token) : fromCookie?.kind === 'operator' ? fromCookie.operator : undefined;
  if (!operator) {
    throw new HttpError(401, 'unauthorized', 'Missing or unknown personal token: send Authorization: Bearer <your token>.', undefined, { 'WWW-Authenticate': 'Bearer realm="fault-relay"' });
  }
  if (operator.role !== 'approver') throw new HttpError(403, 'not_an_approver', `${operator.email} is a viewer: only approvers ${ONLY_APPROVERS[action] ?? 'confirm changes'}.`);
  return operator;
}
