import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';

/**
 * A real HTTP proxy on loopback, as corporate networks have: CONNECT tunnels and absolute-URI
 * requests. It resolves every name to 127.0.0.1 (the way a proxy resolves names its clients
 * cannot), so a client can only reach `*.test` hosts through it, and it counts what passed.
 */
export interface ConnectProxy {
  url: string;
  /** `host:port` of every tunnel and every forwarded request, in order. */
  seen: string[];
  stop(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    // Absolute-URI form: GET http://host:port/path
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URI expected');
      return;
    }
    seen.push(`${target.hostname}:${target.port || 80}`);
    const upstream = httpRequest({ host: '127.0.0.1', port: Number(target.port || 80), method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const [host = '', port = '443'] = (req.url ?? '').split(':');
    seen.push(`${host}:${port}`);
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    async stop() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
