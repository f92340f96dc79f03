import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OperatorDirectory } from '../../core/operators/operators';
import type { Quarantine } from '../../core/quarantine/service';
import { HttpError } from '../errors';
import { approverOf } from './approver-token';
import type { UiSession } from '../ui-session';
import { answersAndErrors } from '../../core/error-body';

/** A device name as the inventory spells them: nothing a path or a shell could read as more. */
const deviceName = z.string().min(1).max(253).regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits and . _ : - only');

/**
 * `POST /devices/:name/clear`: a person who has checked a quarantined device lets changes reach it
 * again, with their own token (approvers only) or from /ui with their own session.
 */
export const deviceRoutes: FastifyPluginAsyncZod<{ quarantine: Pick<Quarantine, 'clear'>; operators?: OperatorDirectory; session?: UiSession }> = async (app, opts) => {
  app.post(
    '/devices/:name/clear',
    { schema: { params: z.object({ name: deviceName }), body: z.strictObject({}).nullish(), response: answersAndErrors } },
    async (request, reply) => {
      const operator = approverOf(request, opts.operators, 'Clearing a quarantined device', opts.session);
      const { name } = request.params;
      const lifted = await opts.quarantine.clear(name, operator.email);
      if (!lifted) throw new HttpError(404, 'not_quarantined', `${name} is not quarantined: there is nothing to clear.`);
      return reply.code(200).send({ status: 'cleared', device: lifted.device, by: operator.email, was: { reason: lifted.reason, since: lifted.since, incident_id: lifted.incident_id, change_id: lifted.change_id } });
    },
  );
};
