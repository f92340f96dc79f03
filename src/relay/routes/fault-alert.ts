import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { InvalidAlertError, splunkAlert, splunkSource } from '../../adapters/alert-sources/splunk';
import type { FaultKeyRules } from '../../runbooks/fault-key';
import { HttpError } from '../errors';
import { errorResponses } from '../../core/error-body';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { acceptedResponseSchema, type AcceptedResponse, type Intake } from '../intake';
import { guardAlertSenders } from './alert-sender';

/** Splunk's webhook: one alert per request, answered with its incident. */
/** `faultKeys`: the alert definitions' key fields (FS `key_fields`); without it every alert gets the BGP key. */
export const faultAlertRoutes: FastifyPluginAsyncZod<{ intake: Intake; webhookSecret?: string; faultKeys?: FaultKeyRules }> = async (app, opts) => {
  guardAlertSenders(app, opts.webhookSecret);

  app.post(
    '/fault-alert',
    {
      schema: {
        body: splunkSource.body,
        response: { 202: acceptedResponseSchema, ...errorResponses },
      },
      // The 202 is built by the intake from typed fields (AcceptedResponse): checking it again with zod on
      // every duplicate cost more than the answer itself. Tests hold the answers to the schema.
      serializerCompiler: (route) => (route.httpStatus === '202' ? (data) => JSON.stringify(data) : serializerCompiler(route as unknown as Parameters<typeof serializerCompiler>[0])),
    },
    async (request, reply) => {
      const id = request.body.result.alert_def_id;
      const [rule, formats] = opts.faultKeys ? await Promise.all([opts.faultKeys(id), opts.faultKeys.formats(id)]) : [undefined, undefined];
      const accepted: AcceptedResponse = await opts.intake(splunkAlert(request.body, rule, formats)).catch((error: unknown) => {
        if (error instanceof InvalidAlertError) throw new HttpError(400, 'invalid_alert', error.message, error.problems);
        throw error;
      });
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
