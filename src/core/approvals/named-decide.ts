import type { Operator, OperatorDirectory } from '../operators/operators';
import { DecisionCommand, type DecideFn } from './decision-command';
import type { DecisionChannel } from './lifecycle';
import type { Actor, GateDecide } from './types';

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

/** Who the gate records: a listed person under their OPERATORS_FILE name (approvers with their groups), anyone else by the channel's identity. */
export function actorOf(operators: OperatorDirectory | undefined, who: DecisionCommand['who'], channel: DecisionChannel): Actor {
  const op = operatorOf(operators, who.id, channel);
  // Only an approver counts toward a policy's groups: a viewer's groups say what they watch.
  if (op) return { id: op.name, display: op.name, person: { email: op.email, groups: op.role === 'approver' ? (op.groups ?? []) : [] } };
  return { id: who.id, ...(who.display ? { display: who.display } : {}) };
}

/**
 * The relay's one `decide`: a decision command, checked (whoever built it), with its person named from
 * OPERATORS_FILE whichever channel it came from (the tray and the terminal by the person's `os_user`),
 * handed to the steps in front of the gate. Anyone not listed (an unmapped OS user, a Webex allow-list
 * e-mail) keeps the channel's own identity.
 */
export function namedDecide(decide: GateDecide, operators: OperatorDirectory | undefined): DecideFn {
  return async (input) => {
    const command = DecisionCommand.parse(input);
    const { who, ...fields } = command;
    return decide({ ...fields, actor: actorOf(operators, who, command.channel) });
  };
}
