import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OperatorDirectory } from '../../core/operators/operators';
import type { ConfirmFn } from '../../core/approvals/decision-command';
import { changeOutcomeText } from '../../core/incidents/change';
import { HttpError } from '../errors';
import { approverOf } from './approver-token';
import type { UiSession } from '../ui-session';
import { answersAndErrors, errorBody } from '../../core/error-body';

const bodySchema = z.strictObject({
  /** The change the person was shown (`change.change_id` on the incident): a confirm is for that change only. */
  change_id: z.string().min(1).max(64),
});


/**
 * `POST /incidents/:id/confirm`: a person keeps a provisional change before its deadline, with their
 * own token (approvers only), or from /ui with their own session. Refused, and nothing changes, for a change already confirmed or rolled back.
 */
export const confirmRoutes: FastifyPluginAsyncZod<{ confirm?: ConfirmFn; operators?: OperatorDirectory; session?: UiSession }> = async (app, opts) => {
  app.post(
    '/incidents/:incident_id/confirm',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), body: bodySchema, response: answersAndErrors } },
    async (request, reply) => {
      const operator = approverOf(request, opts.operators, 'Confirms', opts.session);
      if (!opts.confirm) throw new HttpError(409, 'no_device_tools', 'This relay applies no changes (no device tool server is configured): there is nothing to confirm.');
      const { incident_id } = request.params;
      const who = { id: operator.email, display: operator.name, authenticated_by: request.headers.authorization === undefined ? ('ui_session' as const) : ('personal_token' as const) };
      const result = await opts.confirm({ incident_id, change_id: request.body.change_id, who });
      if (result.ok) {
        return reply.code(200).send({ status: 'confirmed', incident_id, change_id: result.change.change_id, by: operator.email, outcome: changeOutcomeText(result.change) });
      }
      const change = result.change ? { change_id: result.change.change_id, state: result.change.state, outcome: changeOutcomeText(result.change) } : undefined;
      switch (result.code) {
        case 'unknown_incident':
          throw new HttpError(404, 'not_found', `No incident ${incident_id}`);
        case 'recorded':
          // A team relay took it for the relay running the incident, which has not answered yet.
          return reply.code(202).send({ status: 'recorded', incident_id, change_id: request.body.change_id, by: operator.email, message: result.message });
        case 'device_error':
          return reply.code(502).send(errorBody('device_error', `The device tool server did not confirm the change: ${result.message}`));
        case 'no_change':
        case 'not_pending':
        case 'stale_change':
          return reply.code(409).send({ ...errorBody(result.code, result.message), ...(change ? { change } : {}) });
      }
    },
  );
};
