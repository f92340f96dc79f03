import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import type { SleepingClock } from '../../src/core/clock';
import { parseFaultSpec } from '../../src/runbooks/fault-spec';
import { DEFAULT_INVENTORY_PATH, loadInventory, type Inventory } from './inventory';
import { createLab, LabError, type Lab } from './lab';
import { createLabMcpServer } from './mcp-tools';
import { errorBody, errorText } from '../../src/core/error-body';

export interface StartLabOptions {
  inventoryPath?: string;
  /** Takes precedence over `inventoryPath`. */
  inventory?: Inventory;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  convergeDelayMs?: number;
  linkDelayMs?: number;
  clock?: SleepingClock;
  logger?: Logger;
}

export interface RunningLab {
  /** Base URL, e.g. http://127.0.0.1:4310 */
  url: string;
  /** The MCP endpoint (Streamable HTTP), `${url}/mcp`. */
  mcpUrl: string;
  lab: Lab;
  stop(): Promise<void>;
}

export const DEFAULT_LAB_PORT = 4310;
const MAX_ADMIN_BODY = 64 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_ADMIN_BODY) throw new LabError('request body too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new LabError('body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/**
 * The device lab over HTTP: `POST|GET|DELETE /mcp` (MCP, Streamable HTTP, stateless),
 * `GET /health` for the relay's deep health check, and `/admin/*` for the lab CLI
 * (inject, clear, reset, devices). Binds to loopback unless told otherwise.
 */
export async function startLab(opts: StartLabOptions = {}): Promise<RunningLab> {
  const inventory = opts.inventory ?? (await loadInventory(opts.inventoryPath ?? DEFAULT_INVENTORY_PATH));
  const lab = createLab({
    inventory,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.convergeDelayMs !== undefined ? { convergeDelayMs: opts.convergeDelayMs } : {}),
    ...(opts.linkDelayMs !== undefined ? { linkDelayMs: opts.linkDelayMs } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const log = opts.logger;

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    // Stateless: a fresh server and transport per request, so no session state can leak between callers.
    const server = createLabMcpServer(lab);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const handleAdmin = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (req.method === 'GET' && path === '/admin/devices') return sendJson(res, 200, { devices: lab.devices() });
    if (req.method !== 'POST') return sendJson(res, 405, errorBody('method_not_allowed', `${req.method} ${path}`));
    const body = await readJson(req);
    if (path === '/admin/inject') return sendJson(res, 200, { ok: true, message: lab.inject(parseFaultSpec(body)) });
    if (path === '/admin/clear') {
      lab.clearFaults(typeof body.device === 'string' ? body.device : undefined);
      return sendJson(res, 200, { ok: true, message: 'faults cleared' });
    }
    if (path === '/admin/reset') {
      lab.reset();
      return sendJson(res, 200, { ok: true, message: 'lab reset to inventory' });
    }
    return sendJson(res, 404, errorBody('not_found', path));
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://lab').pathname;
    const work = async () => {
      if (path === '/health' && req.method === 'GET') {
        return sendJson(res, 200, { status: 'ok', service: 'device-lab', devices: lab.devices().length });
      }
      if (path === '/mcp') return handleMcp(req, res);
      if (path.startsWith('/admin/')) return handleAdmin(req, res, path);
      return sendJson(res, 404, errorBody('not_found', path));
    };
    work().catch((error: unknown) => {
      const bad = error instanceof LabError || error instanceof ZodError || error instanceof SyntaxError;
      const message =
        error instanceof ZodError ? error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') : errorText(error);
      if (!bad) log?.error({ err: error, path }, 'lab request failed');
      if (!res.headersSent) sendJson(res, bad ? 400 : 500, bad ? errorBody('bad_request', message) : errorBody('internal', 'internal error'));
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_LAB_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log?.info({ url, devices: lab.devices().map((d) => d.hostname) }, 'device lab listening');

  return {
    url,
    mcpUrl: `${url}/mcp`,
    lab,
    stop: async () => {
      lab.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
