import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { inboundAlertSchema } from '../../alert/schema';
import { bearerGuard } from '../auth';
import { errorBodySchema, HttpError } from '../errors';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { acceptedResponseSchema, type AcceptedResponse, type Intake } from '../intake';

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
      // The 202 is built by the intake from typed fields (AcceptedResponse): checking it again with zod on
      // every duplicate cost more than the answer itself. Tests hold the answers to the schema.
      serializerCompiler: (route) => (route.httpStatus === '202' ? (data) => JSON.stringify(data) : serializerCompiler(route as unknown as Parameters<typeof serializerCompiler>[0])),
    },
    async (request, reply) => {
      const accepted: AcceptedResponse = await opts.intake(request.body);
      // The request's own completion line is about this incident too. A child logger costs about a tenth
      // of the duplicate path's throughput, so it is made only when the lines will be written.
      if ((request.log as FastifyBaseLogger & Pick<Logger, 'isLevelEnabled'>).isLevelEnabled('info')) {
        request.log = reply.log = request.log.child({ incident_id: accepted.incident_id });
        request.log.info({ status: accepted.status }, 'fault alert answered');
      }
      return reply.code(202).send(accepted);
    },
  );
};
