import type { OperatorDirectory } from '../operators/operators';
import type { DecisionChannel } from './lifecycle';
import type { Actor, DecideFn } from './types';

/**
 * The person a channel's identity stands for: the OPERATORS_FILE entry behind an e-mail (Webex,
 * Slack's verified match, the API, /ui) or a Slack member id (`slack:U…`). Only the channel's own
 * identity is looked up, never a display name a channel or a caller passes along.
 */
export function operatorNameOf(operators: OperatorDirectory | undefined, id: string, channel?: DecisionChannel): string | undefined {
  if (!operators) return undefined;
  const slack = /^slack:([UW][A-Z0-9]{2,})$/.exec(id)?.[1];
  if (slack) return operators.bySlackId?.(slack)?.name;
  // The tray and the headed terminal know the person by their account on this machine (`os_user`).
  if (channel === 'desktop') return operators.byOsUser?.(id)?.name;
  if (channel === 'terminal') return operators.byOsUser?.(id.replace(/ \(terminal\)$/, ''))?.name;
  return id.includes('@') ? operators.byEmail(id)?.name : undefined;
}

/**
 * `decide` that records a listed person under their name from OPERATORS_FILE, whichever channel the
 * decision came from (the tray and the terminal by the person's `os_user`); anyone not listed (an
 * unmapped OS user, a Webex allow-list e-mail) keeps the channel's own identity.
 */
export function namedDecide(decide: DecideFn, operators: OperatorDirectory | undefined): DecideFn {
  if (!operators) return decide;
  return (incidentId, decision, actor, channel, reason, requestId) => {
    const name = operatorNameOf(operators, actor.id, channel);
    const named: Actor = name ? { id: name, display: name } : actor;
    return decide(incidentId, decision, named, channel, reason, requestId);
  };
}
