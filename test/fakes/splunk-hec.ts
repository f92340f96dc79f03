import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer the fake gives instead of taking the request: `{status, code, text, retryAfter}`. */
export interface HecFault {
  status: number;
  code: number;
  text: string;
  retryAfter?: string;
  /** HEC names the first bad event of a batch in a 400. */
  invalidEvent?: number;
}

interface Received {
  channel: string | undefined;
  events: Record<string, unknown>[];
}

/**
 * A local Splunk HTTP Event Collector speaking its wire protocol: `POST /services/collector/event`
 * with `Authorization: Splunk <token>` and JSON objects back to back; `{"text":"Success","code":0}`;
 * 401 code 2/3 and 403 code 4 for a missing, malformed or unknown token; 400 code 5/6 for no data or
 * an invalid format; with acknowledgement on, `X-Splunk-Request-Channel` is required (400 code 10),
 * the answer carries `ackId` and `POST /services/collector/ack?channel=` says which are indexed.
 */
export async function startFakeHec(opts: { token: string; ack?: boolean; port?: number }) {
  const requests: Received[] = [];
  const faults: HecFault[] = [];
  /** Ack ids handed out and not yet indexed: the test releases them (or the next query does). */
  const unindexed = new Set<number>();
  let holdAcks = false;
  let nextAck = 0;
  const ackQueries: number[][] = [];
  /** Every request to /services/collector/event, answered or refused. */
  let hits = 0;
  /** Event ids the "index" holds, each once: what a search in Splunk would show after dedup on id. */
  const indexed = new Map<string, Record<string, unknown>>();
  const pendingBatches = new Map<number, Record<string, unknown>[]>();

  const send = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const keep = (events: Record<string, unknown>[]) => {
    for (const e of events) {
      const event = e.event as Record<string, unknown>;
      indexed.set(String(event.id), e);
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://hec');
      const auth = req.headers.authorization;
      if (url.pathname === '/services/collector/health') return send(res, 200, { text: 'HEC is healthy', code: 17 });
      if (!auth) return send(res, 401, { text: 'Token is required', code: 2 });
      const m = /^Splunk (\S+)$/.exec(auth);
      if (!m) return send(res, 401, { text: 'Invalid authorization', code: 3 });
      if (m[1] !== opts.token) return send(res, 403, { text: 'Invalid token', code: 4 });
      const channel = (req.headers['x-splunk-request-channel'] as string | undefined) ?? url.searchParams.get('channel') ?? undefined;
      if (url.pathname === '/services/collector/ack') {
        if (!opts.ack) return send(res, 400, { text: 'ACK is disabled', code: 14 });
        const asked = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { acks: number[] }).acks;
        ackQueries.push(asked);
        const acks: Record<string, boolean> = {};
        for (const id of asked) {
          if (!holdAcks && unindexed.delete(id)) keep(pendingBatches.get(id) ?? []);
          acks[String(id)] = !unindexed.has(id) && id < nextAck;
        }
        return send(res, 200, { acks });
      }
      if (url.pathname !== '/services/collector/event') return send(res, 404, { text: 'The requested URL was not found on this server.', code: 404 });
      hits += 1;
      if (opts.ack && !channel) return send(res, 400, { text: 'Data channel is missing', code: 10 });
      const fault = faults.shift();
      if (fault) return send(res, fault.status, { text: fault.text, code: fault.code, ...(fault.invalidEvent !== undefined ? { 'invalid-event-number': fault.invalidEvent } : {}) }, fault.retryAfter ? { 'retry-after': fault.retryAfter } : {});
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (!text) return send(res, 400, { text: 'No data', code: 5 });
      const events: Record<string, unknown>[] = [];
      // Objects back to back, with or without whitespace between: read them one by one.
      let rest = text;
      while (rest.length > 0) {
        const end = objectEnd(rest);
        if (end < 0) return send(res, 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': events.length });
        try {
          const parsed = JSON.parse(rest.slice(0, end)) as Record<string, unknown>;
          if (!('event' in parsed)) return send(res, 400, { text: 'Event field is required', code: 12, 'invalid-event-number': events.length });
          events.push(parsed);
        } catch {
          return send(res, 400, { text: 'Invalid data format', code: 6, 'invalid-event-number': events.length });
        }
        rest = rest.slice(end).trimStart();
      }
      requests.push({ channel, events });
      if (!opts.ack) {
        keep(events);
        return send(res, 200, { text: 'Success', code: 0 });
      }
      const ackId = nextAck++;
      unindexed.add(ackId);
      pendingBatches.set(ackId, events);
      return send(res, 200, { text: 'Success', code: 0, ackId });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    ackQueries,
    hits: () => hits,
    /** Events by id, each once, as the index holds them. */
    indexed,
    /** The next requests to /services/collector/event get these answers, in order. */
    fail: (...next: HecFault[]) => void faults.push(...next),
    /** While held, ack queries answer false: the events are received but not indexed. */
    holdAcks: (hold: boolean) => void (holdAcks = hold),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** Where the first JSON object of `text` ends (exclusive), or -1. */
function objectEnd(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}
export type FakeHec = Awaited<ReturnType<typeof startFakeHec>>;
