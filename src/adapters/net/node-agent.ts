import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { openTunnel, proxyFor, type ProxySettings } from './proxy';

type ConnectOptions = { host?: string; hostname?: string; port?: number | string; servername?: string; ca?: AgentOptions['ca']; cert?: AgentOptions['cert']; key?: AgentOptions['key']; rejectUnauthorized?: boolean };
type Connect = (options: ConnectOptions, callback: (error: Error | null, socket?: Socket) => void) => Socket | undefined;

/**
 * A node:http(s) Agent that follows HTTPS_PROXY / HTTP_PROXY / NO_PROXY for each connection, as
 * the undici dispatchers do for the relay's other calls: for clients built on node:http (the
 * OTLP trace exporter). A proxied target is reached through the proxy's CONNECT tunnel, then TLS
 * with the agent's own options (its CA, client certificate) for https.
 */
export function proxyingAgent(protocol: string, settings: ProxySettings, options: AgentOptions = {}): HttpAgent {
  const secure = protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true, ...options }) : new HttpAgent({ keepAlive: true, ...options });
  const self = agent as unknown as { createConnection: Connect };
  const direct = self.createConnection.bind(agent);
  self.createConnection = (opts, callback) => {
    const host = opts.hostname ?? opts.host ?? 'localhost';
    const port = Number(opts.port || (secure ? 443 : 80));
    const proxy = proxyFor(`${protocol}//${host.includes(':') ? `[${host}]` : host}:${port}`, settings);
    if (!proxy) return direct(opts, callback);
    openTunnel(proxy, host, port, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no tunnel'));
      if (!secure) return callback(null, socket);
      callback(null, tlsConnect({ socket, servername: opts.servername || host, ...pick(opts) }));
    });
    return undefined;
  };
  return agent;
}

const pick = ({ ca, cert, key, rejectUnauthorized }: ConnectOptions) => ({ ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(rejectUnauthorized === false ? { rejectUnauthorized } : {}) });
