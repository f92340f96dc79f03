import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import { errorBody } from '../../core/error-body';
import { DeviceService, type DeviceServiceOptions } from './device-service';
import { loadInventory, type Inventory } from './inventory';
import { createDeviceMcpServer } from './mcp-tools';
import { lockStateDir, type StateLock } from './state-lock';

export interface RunningDeviceServer {
  url: string;
  /** `${url}/mcp`, what DEVICE_MCP_URL points at. */
  mcpUrl: string;
  /**
   * The bearer `/mcp` requires. Whoever started the server hands it to the relay's own MCP client
   * and to nothing else: not a log line, not the runtime's environment, not a health answer.
   */
  token: string;
  service: DeviceService;
  stop(): Promise<void>;
}

export const DEFAULT_DEVICE_SERVER_PORT = 4320;

/** Shorter than this is guessable enough that a local process could try its way in. */
export const MIN_DEVICE_SERVER_TOKEN_LENGTH = 16;

export const generateDeviceServerToken = () => randomBytes(32).toString('base64url');

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant time over equal-length digests, so neither the token nor its length leaks through timing. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return timingSafeEqual(digest(m?.[1] ?? ''), digest(token)) && Boolean(m);
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The Host names a request may carry: loopback, on the port really served. A page in a browser that
 * rebinds its own name to 127.0.0.1 still sends that name, so it is refused before anything runs.
 * A specific non-loopback bind address (`--host 10.0.0.5`) is added, since a remote relay can only
 * name that; a wildcard bind adds nothing.
 */
export function allowedHostHeaders(bindHost: string, port: number): Set<string> {
  const bracketed = bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
  const names = WILDCARD.has(bindHost) || LOOPBACK.includes(bracketed.toLowerCase()) ? LOOPBACK : [...LOOPBACK, bracketed];
  return new Set(names.map((n) => `${n.toLowerCase()}:${port}`));
}

type Refusal = { status: number; code: string; message: string };

/** Why a request is refused before it reaches a tool, or undefined when it may go on. */
function refusal(req: IncomingMessage, path: string, hosts: Set<string>, token: string): Refusal | undefined {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) {
    return { status: 421, code: 'host_not_allowed', message: `this device tool server answers only ${[...hosts].join(', ')}` };
  }
  // /health stays open for liveness probes: it tells how many devices, never which or how to reach them.
  if ((path === '/mcp' || path === '/attach') && !bearerMatches(req.headers.authorization, token)) {
    return { status: 401, code: 'unauthorized', message: 'a bearer token is required: the one the relay was given for this server' };
  }
  return undefined;
}

/**
 * The device tool server: MCP (Streamable HTTP, stateless) at `/mcp` and `GET /health`, on loopback
 * unless told otherwise. One DeviceService behind every request, so SSH sessions and per-device
 * locks are shared by all callers. Every request must name a loopback Host, and `/mcp` must carry
 * the bearer `token` (generated here when none is given), because the tools act on real routers
 * with the inventory's credentials and any local process could otherwise call them.
 */
export async function startDeviceServer(opts: {
  inventoryPath?: string;
  inventory?: Inventory;
  host?: string;
  port?: number;
  logger?: Logger;
  token?: string;
  /** Where provisional changes are journaled (see DeviceServiceOptions.stateDir). */
  stateDir?: string;
  /**
   * `GET /attach` (bearer required): a relay holds this response open for as long as it lives, so a
   * supervised server knows when no relay is left (supervised.ts). Absent: 404.
   */
  attach?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * What a start does with changes its journal holds as pending: `rollback` (the default) puts them back
   * at once; `resume` keeps each until its own deadline (a relay still attached may yet confirm it),
   * rolling back at once only those already past it. See ProvisionalChanges.recover.
   */
  recover?: 'rollback' | 'resume';
  /** See DeviceServiceOptions.beforeLine (tests). */
  beforeLine?: DeviceServiceOptions['beforeLine'];
}): Promise<RunningDeviceServer> {
  const token = opts.token ?? generateDeviceServerToken();
  if (token.length < MIN_DEVICE_SERVER_TOKEN_LENGTH || /\s/.test(token)) {
    throw new Error(`the device server token must be at least ${MIN_DEVICE_SERVER_TOKEN_LENGTH} characters without spaces`);
  }
  const inventory = opts.inventory ?? (await loadInventory(opts.inventoryPath!));
  // Before the journal is read: one server per journal, whoever started it (relay, tray, npm run devices).
  const lock: StateLock | undefined = opts.stateDir ? await lockStateDir(opts.stateDir) : undefined;
  if (lock?.tookOverFrom) opts.logger?.warn({ stale_pid: lock.tookOverFrom }, 'the change journal\'s lock named a process that is gone: taken over');
  const service = new DeviceService(inventory, opts.logger, { stateDir: opts.stateDir, ...(opts.beforeLine ? { beforeLine: opts.beforeLine } : {}) });
  try {
    // Changes left pending by a crashed run are put back (and verified) before anyone can call in.
    await service.changes.recover(opts.recover ?? 'rollback');
  } catch (error) {
    lock?.release();
    throw error;
  }
  const host = opts.host ?? '127.0.0.1';
  let hosts = new Set<string>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://devices').pathname;
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const refused = refusal(req, path, hosts, token);
    if (refused) {
      // The caller's address only: the Host it sent may be an attacker's name, the header a near-miss token.
      opts.logger?.warn({ remote: req.socket.remoteAddress, path, status: refused.status }, 'device tool server refused a request');
      return json(refused.status, errorBody(refused.code, refused.message), refused.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
    }
    if (path === '/health' && req.method === 'GET') return json(200, { status: 'ok', service: 'ssh-devices', devices: service.devices().length });
    if (path === '/attach' && req.method === 'GET' && opts.attach) return opts.attach(req, res);
    if (path !== '/mcp') return json(404, errorBody('not_found', path));
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
        if (!res.headersSent) json(500, errorBody('internal', 'internal error'));
      });
  });
  server.requestTimeout = 15 * 60_000; // a change with a rollback on a slow device takes a while
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      void service.close().finally(() => lock?.release());
      reject(error);
    });
    server.listen(opts.port ?? DEFAULT_DEVICE_SERVER_PORT, host, () => {
      // Known only now (port 0 is any free port); set before the first request can be read.
      hosts = allowedHostHeaders(host, (server.address() as AddressInfo).port);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A wildcard bind is reached, and Host-checked, as loopback.
  const named = WILDCARD.has(host) ? '127.0.0.1' : host;
  const url = `http://${named.includes(':') && !named.startsWith('[') ? `[${named}]` : named}:${port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    token,
    service,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
      // Last: the journal is this server's until nothing of it is still putting a device back.
      lock?.release();
    },
  };
}
