import type { FastifyInstance } from 'fastify';
import { bearerGuard } from '../auth';
import { HttpError } from '../errors';

/**
 * What every alert sender's route checks first, for all sources alike: the webhook secret (the
 * credential of alert senders, and nothing else), then a JSON body.
 */
export function guardAlertSenders(app: FastifyInstance, webhookSecret: string | undefined) {
  // onRequest, not preHandler: an unauthenticated sender learns nothing about its body.
  app.addHook('onRequest', bearerGuard(webhookSecret));
  // fastify would happily parse text/plain; the alert contract is JSON only.
  app.addHook('onRequest', async (request) => {
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (request.method === 'POST' && !/^application\/([\w.-]+\+)?json$/.test(type)) {
      throw new HttpError(415, 'unsupported_media_type', 'Send the alert as Content-Type: application/json.');
    }
  });
}
