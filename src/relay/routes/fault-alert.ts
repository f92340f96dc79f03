import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { inboundAlertSchema } from '../../alert/schema';
import { bearerGuard } from '../auth';
import { errorBodySchema, HttpError } from '../errors';
import { acceptedResponseSchema, type Intake } from '../intake';

export const faultAlertRoutes: FastifyPluginAsyncZod<{ intake: Intake; webhookSecret?: string }> = async (app, opts) => {
  // onRequest, not preHandler: an unauthenticated sender learns nothing about its body.
  app.addHook('onRequest', bearerGuard(opts.webhookSecret));
  // fastify would happily parse text/plain; the alert contract is JSON only.
  app.addHook('onRequest', async (request) => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (request.method === 'POST' && !/^application\/([\w.-]+\+)?json$/.test(type)) {
      throw new HttpError(415, 'unsupported_media_type', 'Send the alert as Content-Type: application/json.');
    }
  });

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
      // The request's own completion line is about this incident too.
      request.log = reply.log = request.log.child({ incident_id: accepted.incident_id });
      request.log.info({ status: accepted.status }, 'fault alert answered');
      return reply.code(202).send(accepted);
    },
  );
};
