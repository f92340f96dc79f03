import { Agent as HttpAgent, type AgentOptions } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { ProxyAgent, type Dispatcher } from 'undici';
import { isLoopbackHost } from '../../config/schema';

/**
 * Corporate proxies, as every other tool reads them: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either
 * case). Loopback is never proxied: the embedded runtime and the lab live there.
 */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string[];
}

export const NO_PROXY_SETTINGS: ProxySettings = { noProxy: [] };

export function proxySettingsFromEnv(env: Record<string, string | undefined>): ProxySettings {
  const pick = (name: string) => (env[name] ?? env[name.toLowerCase()])?.trim() || undefined;
  const noProxy = (pick('NO_PROXY') ?? '')
    .split(/[,\s]+/)
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  return { httpProxy: pick('HTTP_PROXY'), httpsProxy: pick('HTTPS_PROXY'), noProxy };
}

function bypassed(url: URL, noProxy: string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (isLoopbackHost(host)) return true;
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  return noProxy.some((entry) => {
    if (entry === '*') return true;
    const [name = '', entryPort] = entry.replace(/^\*?\./, '.').split(/:(?=\d+$)/);
    if (entryPort && entryPort !== port) return false;
    if (name.startsWith('.')) return host.endsWith(name) || host === name.slice(1);
    return host === name || host.endsWith(`.${name}`);
  });
}

/** The proxy to use for `target`, or undefined for a direct connection. */
export function proxyFor(target: string | URL, settings: ProxySettings): string | undefined {
  const url = typeof target === 'string' ? new URL(target) : target;
  if (bypassed(url, settings.noProxy)) return undefined;
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  return secure ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
}

/** undici dispatchers for the proxies in use, one per proxy, shared by every caller. */
export function createProxyDispatchers(settings: ProxySettings) {
  const agents = new Map<string, ProxyAgent>();
  return {
    /** A dispatcher for `target`, or undefined to use the caller's own (direct) one. */
    for(target: string | URL): Dispatcher | undefined {
      const proxy = proxyFor(target, settings);
      if (!proxy) return undefined;
      let agent = agents.get(proxy);
      if (!agent) agents.set(proxy, (agent = new ProxyAgent({ uri: proxy })));
      return agent;
    },
    async close() {
      await Promise.all([...agents.values()].map((a) => a.close()));
      agents.clear();
    },
  };
}
export type ProxyDispatchers = ReturnType<typeof createProxyDispatchers>;

/**
 * A socket to `host:port` through an HTTP proxy's CONNECT tunnel (plain: the caller adds TLS).
 */
export function openTunnel(proxy: string, host: string, port: number, done: (error: Error | null, socket?: Socket) => void): void {
  let settled = false;
  const callback = (error: Error | null, socket?: Socket) => {
    if (settled) return;
    settled = true;
    socket?.off('error', onError);
    done(error, socket);
  };
  const onError = (error: Error) => callback(error);
  const proxyUrl = new URL(proxy);
  const auth = proxyUrl.username ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxyUrl.username)}:${decodeURIComponent(proxyUrl.password)}`).toString('base64')}\r\n` : '';
  const socket = netConnect(Number(proxyUrl.port || 80), proxyUrl.hostname);
  let buffered = '';
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) return;
    socket.off('data', onData);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(buffered)?.[1] ?? 0);
    if (status !== 200) {
      socket.destroy();
      return callback(new Error(`the proxy refused the tunnel to ${host}:${port} (HTTP ${status || 'no answer'})`));
    }
    callback(null, socket);
  };
  socket.on('data', onData);
  socket.once('error', onError);
  const target = host.includes(':') ? `[${host}]` : host;
  socket.once('connect', () => socket.write(`CONNECT ${target}:${port} HTTP/1.1\r\nHost: ${target}:${port}\r\n${auth}\r\n`));
}

/**
 * An http.Agent that reaches its target through an HTTP proxy's CONNECT tunnel (then TLS for
 * wss/https): for the `ws` websocket, which does not use undici.
 */
export function tunnelAgent(proxy: string, opts: AgentOptions = {}): HttpAgent {
  const agent = new HttpAgent({ keepAlive: false, ...opts });
  (agent as unknown as { createConnection: unknown }).createConnection = (
    options: { host?: string; hostname?: string; port?: number | string; servername?: string; protocol?: string; secureEndpoint?: boolean },
    callback: (error: Error | null, socket?: Socket) => void,
  ) => {
    const host = options.hostname ?? options.host ?? 'localhost';
    openTunnel(proxy, host, Number(options.port ?? 80), (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no tunnel'));
      const secure = options.secureEndpoint || options.protocol === 'https:' || options.protocol === 'wss:';
      callback(null, secure ? tlsConnect({ socket, servername: options.servername ?? host }) : socket);
    });
    return undefined;
  };
  return agent;
}
