import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { batchAnswerSchema, type AlertSource } from '../../core/incidents/alert-source';
import type { BatchIntake } from '../alert-sources';
import { errorResponses } from '../../core/error-body';
import { guardAlertSenders } from './alert-sender';

/**
 * `POST /alerts/<source>`: one route per batch source (Alertmanager …), with the same credential,
 * content type, size limit and error shape as /fault-alert. A valid body is answered 202 with what
 * became of each alert; alerts the relay cannot take are listed, not refused with the batch.
 */
export const alertSourceRoutes: FastifyPluginAsyncZod<{ sources: readonly AlertSource[]; accept: BatchIntake; webhookSecret?: string }> = async (app, opts) => {
  guardAlertSenders(app, opts.webhookSecret);
  for (const source of opts.sources) {
    app.post(
      `/alerts/${source.name}`,
      { schema: { body: source.body, response: { 202: batchAnswerSchema, ...errorResponses } } },
      async (request, reply) => {
        const answer = await opts.accept(source.name, await source.read(request.body));
        request.log.info({ source: source.name, accepted: answer.accepted.length, resolved: answer.resolved.length, unmatched: answer.unmatched.length }, 'alerts answered');
        return reply.code(202).send(answer);
      },
    );
  }
};
