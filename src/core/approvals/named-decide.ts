import type { Operator, OperatorDirectory } from '../operators/operators';
import type { DecisionChannel } from './lifecycle';
import type { Actor, DecideFn } from './types';

/**
 * The person a channel's identity stands for: the OPERATORS_FILE entry behind an e-mail (Webex,
 * Slack's verified match, the API, /ui) or a Slack member id (`slack:U…`). Only the channel's own
 * identity is looked up, never a display name a channel or a caller passes along.
 */
export function operatorOf(operators: OperatorDirectory | undefined, id: string, channel?: DecisionChannel): Operator | undefined {
  if (!operators) return undefined;
  const slack = /^slack:([UW][A-Z0-9]{2,})$/.exec(id)?.[1];
  if (slack) return operators.bySlackId?.(slack);
  // The tray and the headed terminal know the person by their account on this machine (`os_user`).
  if (channel === 'desktop') return operators.byOsUser?.(id);
  if (channel === 'terminal') return operators.byOsUser?.(id.replace(/ \(terminal\)$/, ''));
  return id.includes('@') ? operators.byEmail(id) : undefined;
}


/**
 * `decide` that records a listed person under their name from OPERATORS_FILE, whichever channel the
 * decision came from (the tray and the terminal by the person's `os_user`); anyone not listed (an
 * unmapped OS user, a Webex allow-list e-mail) keeps the channel's own identity.
 */
export function namedDecide(decide: DecideFn, operators: OperatorDirectory | undefined): DecideFn {
  if (!operators) return decide;
  return (incidentId, decision, actor, channel, reason, requestId) => {
    const op = operatorOf(operators, actor.id, channel);
    // Only an approver counts toward a policy's groups: a viewer's groups say what they watch.
    const named: Actor = op ? { id: op.name, display: op.name, person: { email: op.email, groups: op.role === 'approver' ? (op.groups ?? []) : [] } } : actor;
    return decide(incidentId, decision, named, channel, reason, requestId);
  };
}
