import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import { DeviceService } from './device-service';
import { loadInventory, type Inventory } from './inventory';
import { createDeviceMcpServer } from './mcp-tools';

export interface RunningDeviceServer {
  url: string;
  /** `${url}/mcp`, what DEVICE_MCP_URL points at. */
  mcpUrl: string;
  service: DeviceService;
  stop(): Promise<void>;
}

export const DEFAULT_DEVICE_SERVER_PORT = 4320;

/**
 * The device tool server: MCP (Streamable HTTP, stateless) at `/mcp` and `GET /health`, on loopback
 * unless told otherwise. One DeviceService behind every request, so SSH sessions and per-device
 * locks are shared by all callers.
 */
export async function startDeviceServer(opts: { inventoryPath?: string; inventory?: Inventory; host?: string; port?: number; logger?: Logger }): Promise<RunningDeviceServer> {
  const inventory = opts.inventory ?? (await loadInventory(opts.inventoryPath!));
  const service = new DeviceService(inventory, opts.logger);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://devices').pathname;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/health' && req.method === 'GET') return json(200, { status: 'ok', service: 'ssh-devices', devices: service.devices().length });
    if (path !== '/mcp') return json(404, { error: { code: 'not_found', message: path } });
    const mcp = createDeviceMcpServer(service);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    mcp
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => {
        opts.logger?.error({ err: error }, 'device MCP request failed');
        if (!res.headersSent) json(500, { error: { code: 'internal', message: 'internal error' } });
      });
  });
  server.requestTimeout = 15 * 60_000; // a change with a rollback on a slow device takes a while
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_DEVICE_SERVER_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    service,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}
