import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * Stands in for the relay's `/mcp` where the relay itself is not under test: the tool names the
 * agents see, each call recorded and answered at once.
 */
export async function startRelayToolsStub() {
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  const build = () => {
    const server = new McpServer({ name: 'relay-stub', version: '1.0.0' });
    const record = (tool: string) => async (args: Record<string, unknown>) => {
      calls.push({ tool, args });
      return { content: [{ type: 'text' as const, text: JSON.stringify({ stub: tool, status: tool === 'request_approval' ? 'pending' : 'ok' }) }] };
    };
    const loose = { incident_id: z.string() };
    server.registerTool('notify', { inputSchema: { ...loose, kind: z.string(), markdown: z.string() } }, record('notify'));
    server.registerTool('request_approval', { inputSchema: { ...loose, summary: z.string(), device: z.string(), commands: z.array(z.string()) } }, record('request_approval'));
    server.registerTool('report_outcome', { inputSchema: { ...loose, outcome: z.string(), summary: z.string() } }, record('report_outcome'));
    server.registerTool('wait', { inputSchema: { ...loose, seconds: z.number() } }, record('wait'));
    return server;
  };
  const http: Server = createServer((req, res) => {
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    stop: () => new Promise<void>((resolve) => (http.closeAllConnections(), http.close(() => resolve()))),
  };
}
