import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import type { UiSession } from './ui-session';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Bearer check in constant time. Comparing digests keeps the comparison length-
 * independent, so the secret's length does not leak either.
 */
/**
 * `session`: the browser UI's cookie also counts (read-only endpoints only: never
 * `/fault-alert`, the proxy or the agents' tools).
 */
export function bearerGuard(secret: string | undefined, secretName = 'WEBHOOK_SECRET', session?: UiSession, readers?: (token: string) => boolean) {
  const expected = secret ? digest(secret) : null;
  return async (request: FastifyRequest) => {
    if (!expected) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const ok = match ? timingSafeEqual(digest(match[1] as string), expected) : false;
    if (!ok && session?.accepts(request)) return;
    // A person's own token opens the read-only views (reads only: it never creates or changes anything here).
    if (!ok && match && readers && (request.method === 'GET' || request.method === 'HEAD') && readers(match[1] as string)) return;
    if (!ok) {
      throw new HttpError(401, 'unauthorized', `Missing or wrong bearer token: send Authorization: Bearer <${secretName}>.`, undefined, {
        'WWW-Authenticate': 'Bearer realm="fault-relay"',
      });
    }
  };
}
