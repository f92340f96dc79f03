import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
import type { ChangeStatus, DeviceTools } from '../../src/core/changes/device-contract';
import { registerPreviewTool } from '../../src/runbooks/config-preview-tool';

/**
 * A DeviceTools stand-in (unrollableDevice and the like) served as a device tool server: MCP over
 * Streamable HTTP, stateless, behind a bearer token, with the tools and answers the relay's client
 * reads. For relays in their own process (`npm run relay` with DEVICE_MCP_URL); closed when the test ends.
 */
export async function serveDeviceStandIn(tools: DeviceTools, token: string): Promise<string> {
  const failed = (error: unknown) => ({ isError: true, content: [{ type: 'text' as const, text: (error as Error).message }] });
  const status = async (work: () => Promise<ChangeStatus>) => {
    try {
      const s = await work();
      return { content: [{ type: 'text' as const, text: `change ${s.change_id} on ${s.device}: ${s.state}` }], structuredContent: s };
    } catch (error) {
      return failed(error);
    }
  };
  const change = { device: z.string(), change_id: z.string() };
  const mcpServer = () => {
    const server = new McpServer({ name: 'device-stand-in', version: '1.0.0' });
    server.registerTool('exec_cli', { inputSchema: { device: z.string(), command: z.string() } }, async ({ device, command }) => {
      try {
        return { content: [{ type: 'text' as const, text: await tools.execCli(device, command) }] };
      } catch (error) {
        return failed(error);
      }
    });
    server.registerTool(
      'config_cli',
      { inputSchema: { device: z.string(), commands: z.array(z.string()), confirm_within_s: z.number().int().optional(), expect_config_sha256: z.string().optional() } },
      async ({ device, commands, confirm_within_s }) => {
        try {
          if (confirm_within_s === undefined) return { content: [{ type: 'text' as const, text: await tools.configCli(device, commands) }] };
          const r = await tools.configProvisional(device, commands, confirm_within_s);
          return { content: [{ type: 'text' as const, text: `${r.output}\nprovisional until ${r.change.deadline}` }], structuredContent: r.change };
        } catch (error) {
          return failed(error);
        }
      },
    );
    server.registerTool('confirm_change', { inputSchema: change }, ({ device, change_id }) => status(() => tools.confirmChange(device, change_id)));
    server.registerTool('rollback_change', { inputSchema: { ...change, reason: z.string() } }, ({ device, change_id, reason }) => status(() => tools.rollbackChange(device, change_id, reason)));
    server.registerTool('change_status', { inputSchema: change }, ({ device, change_id }) => status(() => tools.changeStatus(device, change_id)));
    registerPreviewTool(server, (device, commands) => tools.previewConfig(device, commands), failed);
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
