import type { FastifyPluginAsync } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { bearerGuard } from '../auth';

/**
 * The relay's tools for the agents over Streamable HTTP, stateless: a fresh MCP
 * server per request, so no state leaks between callers.
 */
export const mcpRoutes: FastifyPluginAsync<{ path: string; token: string; createServer: () => McpServer }> = async (app, opts) => {
  app.addHook('onRequest', bearerGuard(opts.token, 'RELAY_TOOLS_TOKEN'));
  app.all(opts.path, async (request, reply) => {
    // Stateless: nothing is ever pushed, so no standing GET stream (the spec's 405). An open one
    // would also keep the relay from closing while its embedded runtime still holds it.
    if (request.method === 'GET') return reply.code(405).header('allow', 'POST, DELETE').send({ error: { code: 'method_not_allowed', message: 'no server-sent stream on this endpoint; POST MCP requests' } });
    const server = opts.createServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
};
