import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { onTestFinished } from 'vitest';
import type { DeviceTools } from '../../src/core/changes/device-contract';
import { registerDeviceTools } from '../../src/adapters/device-tools/register-device-tools';

/**
 * A DeviceTools stand-in (unrollableDevice and the like) served as a device tool server: MCP over
 * Streamable HTTP, stateless, behind a bearer token, with the tools and answers the relay's client
 * reads (the contract's one registration). For relays in their own process (`npm run relay` with DEVICE_MCP_URL); closed when the test ends.
 */
export async function serveDeviceStandIn(tools: DeviceTools, token: string): Promise<string> {
  const mcpServer = () => {
    const server = new McpServer({ name: 'device-stand-in', version: '1.0.0' });
    registerDeviceTools(server, tools, { devices: 'the stand-in devices', openWorld: false });
    return server;
  };

  const http = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}
