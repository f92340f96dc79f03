import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { inboundAlertSchema } from '../../alert/schema';
import { bearerGuard } from '../auth';
import { errorBodySchema } from '../errors';
import { acceptedResponseSchema, type Intake } from '../intake';

export const faultAlertRoutes: FastifyPluginAsyncZod<{ intake: Intake; webhookSecret?: string }> = async (app, opts) => {
  // onRequest, not preHandler: an unauthenticated sender learns nothing about its body.
  app.addHook('onRequest', bearerGuard(opts.webhookSecret));

  app.post(
    '/fault-alert',
    {
      schema: {
        body: inboundAlertSchema,
        response: { 202: acceptedResponseSchema, 400: errorBodySchema, 401: errorBodySchema },
      },
    },
    async (request, reply) => {
      const accepted = await opts.intake(request.body);
      request.log.info({ incident_id: accepted.incident_id, status: accepted.status }, 'fault alert answered');
      return reply.code(202).send(accepted);
    },
  );
};
