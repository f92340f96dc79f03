import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Readable } from 'node:stream';
import { answersAndErrors } from '../../core/error-body';
import { bearerGuard } from '../auth';
import { HttpError } from '../errors';

/** The transport's HTTP refusals (its body is a JSON-RPC error) under the relay's own codes. */
const CODES: Record<number, string> = {
  400: 'invalid_body',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** The same request as a web-standard Request; the body is already parsed (and checked) by fastify. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(request.url, 'http://relay.invalid'), { method: request.method, headers });
}

/** A refusal of the MCP transport, as an error in the documented shape, keeping its message. */
async function refusal(response: Response): Promise<HttpError> {
  let message = `The MCP request was refused (${response.status}).`;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // No JSON body: the generic message stands.
  }
  const allow = response.headers.get('allow');
  const code = CODES[response.status] ?? (response.status >= 500 ? 'internal_error' : 'bad_request');
  return new HttpError(response.status, code, message, undefined, allow ? { allow } : {});
}

/**
 * The relay's tools for the agents over Streamable HTTP, stateless: a fresh MCP server per
 * request, so no state leaks between callers. The web-standard transport hands its answer back
 * instead of writing to the socket, so its HTTP refusals (406, 415, a body that is not JSON-RPC …)
 * go out through the error handler in the documented shape; JSON-RPC answers pass unchanged.
 */
export const mcpRoutes: FastifyPluginAsync<{ path: string; token: string; createServer: () => McpServer }> = async (app, opts) => {
  app.addHook('onRequest', bearerGuard(opts.token, 'RELAY_TOOLS_TOKEN'));
  app.all(opts.path, { schema: { response: answersAndErrors } }, async (request, reply) => {
    // Stateless: nothing is ever pushed, so no standing GET stream (the spec's 405). An open one
    // would also keep the relay from closing while its embedded runtime still holds it.
    if (request.method !== 'POST' && request.method !== 'DELETE') {
      throw new HttpError(405, 'method_not_allowed', `${request.method} is not served here (no server-sent stream either): POST MCP requests.`, undefined, { allow: 'POST, DELETE' });
    }
    const server = opts.createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const done = () => {
      void transport.close();
      void server.close();
    };
    // Also when the caller goes away mid-call: its answer will not be read.
    reply.raw.once('close', done);
    const gone = new Promise<undefined>((resolve) => reply.raw.once('close', () => resolve(undefined)));
    await server.connect(transport);
    const response = await Promise.race([transport.handleRequest(webRequest(request), { parsedBody: request.body }), gone]);
    if (!response) {
      reply.hijack();
      return;
    }
    if (response.status >= 400) throw await refusal(response);
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    if (!response.body) return reply.send();
    // JSON answers (enableJsonResponse); a stream only if the transport ever chose one.
    if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) return reply.send(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream));
    return reply.send(await response.text());
  });
};
