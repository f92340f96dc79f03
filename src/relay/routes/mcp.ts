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
