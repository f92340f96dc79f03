import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findUnstorableJson } from '../core/incidents/storable-text';
import { StoreUnavailableError } from '../core/incidents/store';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorBody, type ErrorBody } from '../core/error-body';

export { errorBody, errorBodySchema, errorResponses, type ErrorBody } from '../core/error-body';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorBody['error']['details'],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}


/** Fastify's own errors, by code, as the error bodies the decisions table names. */
const FASTIFY_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'The request body is empty; a JSON alert is expected.'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is larger than the relay accepts.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Send the alert as Content-Type: application/json.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_request', 'Content-Length does not match the body.'],
};

/** Routes whose body is an alert (Splunk's, or a batch source's under /alerts/): their validation errors are `invalid_alert`. */
const ALERT_ROUTES = new Set(['/fault-alert', '/headed']);
const isAlertRoute = (url: string) => ALERT_ROUTES.has(url) || url.startsWith('/alerts/');

/**
 * JSON bodies: invalid JSON is `invalid_json`; valid JSON carrying a `__proto__` or
 * `constructor.prototype` key (prototype poisoning) is refused as `forbidden_key`, not called invalid;
 * a value or key no store can hold (a NUL, a lone surrogate) is `invalid_alert` (`invalid_body` off
 * the alert routes), naming where it is.
 */
export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([\w.-]+\+)?json$/i, { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(new HttpError(400, 'invalid_json', 'The request body is empty; JSON is expected.'), undefined);
    let forbidden = false;
    let value: unknown;
    // The key check walks every key: only texts that could hold such a key pay for it.
    const suspicious = text.includes('__proto__') || text.includes('constructor');
    try {
      value = suspicious
        ? JSON.parse(text, function (key, v: unknown) {
            if (key === '__proto__' || (key === 'constructor' && v !== null && typeof v === 'object' && 'prototype' in v)) forbidden = true;
            return v;
          })
        : JSON.parse(text);
    } catch {
      return done(new HttpError(400, 'invalid_json', 'The request body is not valid JSON.'), undefined);
    }
    if (forbidden) return done(new HttpError(400, 'forbidden_key', 'The JSON body has a "__proto__" or "constructor.prototype" key, which the relay refuses.'), undefined);
    // Text a store cannot hold is refused here, on every route, before anything is written.
    const unstorable = findUnstorableJson(text, value);
    if (unstorable) {
      const alert = isAlertRoute(request.routeOptions?.url ?? request.url);
      const what = alert ? 'The alert is not valid' : "The request's body is not valid";
      return done(new HttpError(400, alert ? 'invalid_alert' : 'invalid_body', `${what}: ${unstorable.path}: ${unstorable.message}`, [unstorable]), undefined);
    }
    done(null, value);
  });
}

/** One error handler: field paths for bad input, nothing internal in a 5xx. */
export function installErrorHandler(app: FastifyInstance, scrub: (text: string) => string = (t) => t) {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send(errorBody(error.code, scrub(error.message), error.details));
    }
    // The team relay's database is away: the caller retries; nothing was recorded.
    if (error instanceof StoreUnavailableError) {
      return reply.code(503).header('retry-after', '5').send(errorBody('store_unavailable', scrub(error.message)));
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'body';
      const details = error.validation.map((v) => ({
        path: v.instancePath.replace(/^\//, '').replace(/\//g, '.') || `(${where})`,
        message: v.message ?? 'invalid',
      }));
      const summary = details.map((d) => `${d.path}: ${d.message}`).join('; ');
      // The code names what was wrong where: an alert body, or the request's path, query or body.
      const alert = where === 'body' && isAlertRoute(request.routeOptions.url ?? '');
      const code = alert ? 'invalid_alert' : where === 'params' ? 'invalid_params' : where === 'querystring' ? 'invalid_query' : where === 'headers' ? 'invalid_headers' : 'invalid_body';
      const what = alert ? 'The alert is not valid' : `The request's ${where === 'querystring' ? 'query' : where} is not valid`;
      return reply.code(400).send(errorBody(code, scrub(`${what}: ${summary}`), details));
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) {
      const [status, code, message] = known;
      return reply.code(status).send(errorBody(code, message));
    }
    if (error.statusCode && error.statusCode < 500) {
      return reply.code(error.statusCode).send(errorBody('bad_request', scrub(error.message)));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody('internal_error', 'The relay could not handle this request; see its log.'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('not_found', `No route ${request.method} ${request.url.split('?')[0]}`));
  });
}

/**
 * fastify answers a path that is not valid percent-encoding (`/%E0%A4%A`), or a path part over
 * its length limit, before any route, hook or error handler: this is its `frameworkErrors` option,
 * so those answers have the documented shape too.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // The reply is thenable: sent, not returned, since fastify takes nothing back from this option.
  if (error.code === 'FST_ERR_BAD_URL') reply.code(400).send(errorBody('invalid_url', 'The request path is not valid percent-encoding.'));
  else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') reply.code(414).send(errorBody('uri_too_long', 'A part of the request path is longer than the relay accepts.'));
  else reply.code(500).send(errorBody('internal_error', 'The relay could not route this request; see its log.'));
}

/**
 * A request Node's HTTP parser refuses (not HTTP, headers too large, too slow) never becomes a
 * fastify request: it is answered on the socket, here, in the documented shape (`clientErrorHandler`).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex) {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, string, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request headers are larger than the relay accepts.']
        : [400, 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify(errorBody(code, message));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

/**
 * An `Expect` other than `100-continue` is refused by Node before any route (an empty 417); the
 * relay answers it in the documented shape. `100-continue` keeps Node's own handling.
 */
export function answerExpectations(app: FastifyInstance) {
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(errorBody('expectation_failed', 'The relay supports no Expect header but "100-continue"; send the request without it.'));
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  });
}

/**
 * While the relay closes, requests still arriving on open connections are answered 503 in the
 * documented shape (fastify's own `return503OnClosing` answer has another shape; it is turned off).
 */
export function installClosingAnswer(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (!closing) return done();
    done(new HttpError(503, 'shutting_down', 'The relay is shutting down; try again shortly.', undefined, { 'retry-after': '1', connection: 'close' }));
  });
}
