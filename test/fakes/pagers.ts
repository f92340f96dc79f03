import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** An answer the test forces on the next request(s), before the fake's own checks. */
export interface ForcedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakePager<Event> {
  url: string;
  /** Events the fake accepted (answered 202), in order. */
  accepted: Event[];
  /** Every request it got, accepted or not. */
  received: { path: string; headers: IncomingMessage['headers']; body: unknown; status: number }[];
  /** The next requests get these answers instead (one each). */
  answerNext(...answers: ForcedAnswer[]): void;
  /** While set, every request is answered with this status (a pager that is down); undefined: back up. */
  setDown(status: number | undefined): void;
  /** Resolves once `accepted` holds `n` events (checked on every request: no timer). */
  untilAccepted(n: number): Promise<void>;
  /** Resolves once `received` holds `n` requests. */
  untilReceived(n: number): Promise<void>;
  close(): Promise<void>;
}

type Judge = (path: string, headers: IncomingMessage['headers'], body: unknown) => { status: number; body: unknown; accepted?: boolean };

async function fakeServer<Event>(judge: Judge): Promise<FakePager<Event>> {
  const accepted: Event[] = [];
  const received: FakePager<Event>['received'] = [];
  const forced: ForcedAnswer[] = [];
  const waiters: { n: number; of: 'accepted' | 'received'; resolve: () => void }[] = [];
  let down: number | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const next = down !== undefined ? { status: down } : forced.shift();
      const verdict = next ? { status: next.status, body: next.body ?? {}, accepted: false } : judge(req.url ?? '', req.headers, body);
      received.push({ path: req.url ?? '', headers: req.headers, body, status: verdict.status });
      if (verdict.accepted) accepted.push(body as Event);
      res.writeHead(verdict.status, { 'content-type': 'application/json', ...(next?.headers ?? {}) });
      res.end(JSON.stringify(verdict.body));
      for (const w of waiters.filter((x) => (x.of === 'accepted' ? accepted : received).length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakePager<Event> = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted,
    received,
    answerNext: (...answers) => void forced.push(...answers),
    setDown: (status) => void (down = status),
    untilAccepted: (n) => (accepted.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, of: 'accepted', resolve }))),
    untilReceived: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, of: 'received', resolve }))),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  onTestFinished(() => fake.close());
  return fake;
}

export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'acknowledge' | 'resolve';
  dedup_key: string;
  payload?: { summary: string; source: string; severity: string; custom_details?: Record<string, string> };
  links?: { href: string; text: string }[];
}

const PD_SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);

/**
 * PagerDuty's Events API v2 as its documentation describes it: `POST /v2/enqueue`, 202 `{status:
 * "success", message: "Event processed", dedup_key}`, 400 `{status: "invalid event", message,
 * errors}` for a bad event (wrong routing key, missing summary/source/severity on a trigger).
 */
export function fakePagerDuty(routingKey: string) {
  return fakeServer<PagerDutyEvent>((path, _headers, body) => {
    const e = body as Partial<PagerDutyEvent> | undefined;
    const invalid = (why: string) => ({ status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors: [why] } });
    if (path !== '/v2/enqueue') return { status: 404, body: { status: 'not found' } };
    if (!e || typeof e !== 'object') return invalid('Request body is not valid JSON');
    if (e.routing_key !== routingKey) return invalid("'routing_key' is invalid");
    if (!e.event_action || !['trigger', 'acknowledge', 'resolve'].includes(e.event_action)) return invalid("'event_action' is invalid");
    if (e.event_action === 'trigger') {
      const p = e.payload;
      if (!p?.summary || p.summary.length > 1024) return invalid("'payload.summary' is missing or too long");
      if (!p.source) return invalid("'payload.source' is missing");
      if (!PD_SEVERITIES.has(p.severity ?? '')) return invalid("'payload.severity' is invalid");
    } else if (!e.dedup_key) return invalid("'dedup_key' is required for acknowledge and resolve");
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: e.dedup_key ?? randomUUID() }, accepted: true };
  });
}

export interface OpsgenieRequest {
  path: string;
  body: { message?: string; alias?: string; priority?: string; details?: Record<string, string>; note?: string };
}

/**
 * Opsgenie's Alert API: `POST /v2/alerts` (create), `POST /v2/alerts/<alias>/acknowledge|close?
 * identifierType=alias`, `Authorization: GenieKey <key>`; 202 `{result, took, requestId}`; 401
 * for a wrong key; 422 for a create without `message`.
 */
export function fakeOpsgenie(apiKey: string) {
  return fakeServer<OpsgenieRequest>((path, headers, body) => {
    const requestId = randomUUID();
    if (headers.authorization !== `GenieKey ${apiKey}`) return { status: 401, body: { message: 'Could not authenticate', took: 0, requestId } };
    const b = (body ?? {}) as OpsgenieRequest['body'];
    const action = /^\/v2\/alerts\/[^/?]+\/(acknowledge|close)\?identifierType=alias$/.exec(path);
    if (path === '/v2/alerts') {
      if (!b.message || b.message.length > 130) return { status: 422, body: { message: 'Request body is not processable', errors: { message: 'Message can not be empty or longer than 130' }, took: 0, requestId } };
    } else if (!action) return { status: 404, body: { message: 'Not found', took: 0, requestId } };
    return { status: 202, body: { result: 'Request will be processed', took: 0.01, requestId }, accepted: true };
  }).then((fake) => ({
    ...fake,
    /** The accepted requests with their paths (create, acknowledge, close). */
    get calls() {
      return fake.received.filter((r) => r.status === 202).map((r) => ({ path: r.path, body: r.body as OpsgenieRequest['body'] }));
    },
  }));
}
