import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

/** What the operator typed, for the relay to read: `ok` false means the message must not reach the agent as a decision. */
export type TypedInput = (text: string) => Promise<void>;

export interface TerminalProxy {
  /** Where opencode's terminal UI attaches instead of the runtime itself. */
  url: string;
  stop(): Promise<void>;
}

const PROMPT_PATH = /^\/session\/([^/?]+)\/(message|prompt_async)(\?|$)/;
const MAX_BODY = 4 * 1024 * 1024;

/** The text parts of a prompt body, joined: what the operator typed. */
function typedText(body: Buffer): string | null {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { parts?: { type?: string; text?: string; synthetic?: boolean }[] };
    const parts = (parsed.parts ?? []).filter((p) => p.type === 'text' && !p.synthetic && typeof p.text === 'string');
    return parts.length ? parts.map((p) => p.text).join('\n') : null;
  } catch {
    return null;
  }
}

/**
 * `npm run headed`'s seat between opencode's terminal UI and the runtime, in the operator's own
 * process: every request passes through unchanged, and a message the operator sends in the headed
 * session is first reported to the relay with the terminal credential (which the runtime never
 * holds). Reported before it is forwarded, so a typed decision is recorded before the agent reads it.
 */
export async function startTerminalProxy(opts: { target: string; sessionId: string; onTyped: TypedInput }): Promise<TerminalProxy> {
  const target = new URL(opts.target);

  function forward(req: IncomingMessage, res: ServerResponse, body?: Buffer) {
    const upstream = httpRequest(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'ProxyError', data: { message: `the agent runtime is not reachable: ${error.message}` } }));
    });
    res.on('close', () => upstream.destroy());
    if (body) upstream.end(body);
    else req.pipe(upstream);
  }

  const server = createServer((req, res) => {
    const m = req.method === 'POST' ? PROMPT_PATH.exec(req.url ?? '') : null;
    if (!m || decodeURIComponent(m[1] ?? '') !== opts.sessionId) return forward(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = typedText(body);
      const report = text === null ? Promise.resolve() : opts.onTyped(text);
      // Whatever the relay made of it, the message still reaches the agent: a question stays a question.
      report.catch(() => undefined).finally(() => forward(req, res, body));
    });
  });
  // Websockets (the terminal UI's live channels) pass through as raw bytes.
  server.on('upgrade', (req, socket, head) => {
    const up = connect(Number(target.port), target.hostname, () => {
      const headers = Object.entries({ ...req.headers, host: target.host }).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
      up.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
