import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { wait } from '../../core/backoff';
import type { Clock } from '../../core/clock';
import type { AuditEvent } from './schema';
import { retryAfterMs, type AuditSender, type BatchResult } from './sender';
import { errorText } from '../../core/error-body';

export interface SplunkHecOptions {
  /** SPLUNK_HEC_URL: the collector's base (`https://splunk:8088`) or its `/services/collector/event`. */
  url: string;
  /** SPLUNK_HEC_TOKEN: sent as `Authorization: Splunk <token>` and nowhere else. */
  token: string;
  /** Indexer acknowledgement: each request on one channel, finished only once Splunk says it is indexed. */
  ack: boolean;
  index?: string;
  host: string;
  clock: Clock;
  /** The corporate proxy's dispatcher for this URL, if any. */
  dispatcher?: Dispatcher;
  batchSize?: number;
  /** How long to ask for an acknowledgement before sending the batch again. */
  ackTimeoutMs?: number;
  ackPollMs?: number;
  requestTimeoutMs?: number;
}

/** The collector's base URL, whichever of its forms was configured. */
export function hecBase(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/services\/collector(\/event(\/1\.0)?)?$/, '');
}

/** HEC's own answer: `{"text":"…","code":n}`, plus `ackId` with acknowledgement on. */
function answerOf(text: string): { text?: string; code?: number; ackId?: number; acks?: Record<string, boolean>; invalidEvent?: number } {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return {
      // The receiver's words go to /health and the timeline: one line, short.
      ...(typeof body.text === 'string' ? { text: body.text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200) } : {}),
      ...(typeof body.code === 'number' ? { code: body.code } : {}),
      ...(typeof body.ackId === 'number' ? { ackId: body.ackId } : {}),
      ...(typeof body['invalid-event-number'] === 'number' ? { invalidEvent: body['invalid-event-number'] } : {}),
      ...(body.acks && typeof body.acks === 'object' ? { acks: body.acks as Record<string, boolean> } : {}),
    };
  } catch {
    return {};
  }
}

const describe = (status: number, a: ReturnType<typeof answerOf>) => `HTTP ${status}${a.code !== undefined ? ` code ${a.code}` : ''}${a.text ? `: ${a.text}` : ''}`;

/**
 * Splunk's HTTP Event Collector: `POST /services/collector/event` with the events back to back in
 * one body. 400 (no data, invalid format) is the events' fault: permanent. 429 and 5xx, a refused
 * token (it may be fixed) and a network error are tried again, after Retry-After when given.
 */
export function createSplunkHecSender(opts: SplunkHecOptions): AuditSender {
  const base = hecBase(opts.url);
  const channel = randomUUID();
  const headers = {
    authorization: `Splunk ${opts.token}`,
    'content-type': 'application/json',
    ...(opts.ack ? { 'x-splunk-request-channel': channel } : {}),
  };
  const timeout = opts.requestTimeoutMs ?? 10_000;
  const post = async (path: string, body: string) => {
    const res = await request(`${base}${path}`, {
      method: 'POST',
      headers,
      body,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    return { status: res.statusCode, headers: res.headers, answer: answerOf(await res.body.text()) };
  };

  /** Asks until Splunk says the request is indexed, or the time is up (then the batch goes again). */
  async function indexed(ackId: number): Promise<BatchResult> {
    const deadline = opts.clock.now().getTime() + (opts.ackTimeoutMs ?? 60_000);
    const query = `/services/collector/ack?channel=${channel}`;
    for (;;) {
      const res = await post(query, JSON.stringify({ acks: [ackId] }));
      if (res.status !== 200) return { ok: false, permanent: false, reason: `acknowledgement query: ${describe(res.status, res.answer)}` };
      if (res.answer.acks?.[String(ackId)] === true) return { ok: true };
      if (opts.clock.now().getTime() >= deadline) return { ok: false, permanent: false, reason: `not acknowledged as indexed within ${Math.round((opts.ackTimeoutMs ?? 60_000) / 1000)} s` };
      await wait(opts.ackPollMs ?? 1_000, opts.clock);
    }
  }

  return {
    sink: 'splunk_hec',
    batchSize: opts.batchSize ?? 100,
    async send(events: readonly AuditEvent[]): Promise<BatchResult> {
      const body = events
        .map((event) =>
          JSON.stringify({ time: Date.parse(event.time) / 1000, host: opts.host, source: 'fault-relay', sourcetype: 'fault_relay:audit', ...(opts.index ? { index: opts.index } : {}), event }),
        )
        .join('\n');
      let res: Awaited<ReturnType<typeof post>>;
      try {
        res = await post('/services/collector/event', body);
      } catch (error) {
        return { ok: false, permanent: false, reason: `cannot reach the collector: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}` };
      }
      if (res.status === 200) {
        if (!opts.ack) return { ok: true };
        if (res.answer.ackId === undefined) return { ok: false, permanent: false, reason: 'acknowledgement is on but the collector gave no ackId (is it enabled on the token?)' };
        return indexed(res.answer.ackId).catch((error: unknown) => ({ ok: false as const, permanent: false, reason: `acknowledgement query failed: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}` }));
      }
      const after = retryAfterMs(res.headers['retry-after'], opts.clock.now());
      return { ok: false, permanent: res.status === 400, reason: describe(res.status, res.answer), ...(after !== undefined ? { retryAfterMs: after } : {}) };
    },
    close: async () => undefined,
  };
}
