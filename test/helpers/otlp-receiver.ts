import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, flattened with its resource's service name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** The span's links to spans elsewhere (another trace's request, say). */
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
const valueOf = (v: AnyValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

interface ExportBody {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: (Omit<ReceivedSpan, 'service' | 'attributes' | 'links'> & { attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[] })[] }[] }[];
}

/**
 * A small OTLP/HTTP traces receiver (`POST /v1/traces`, the JSON encoding: OTEL_EXPORTER_OTLP_PROTOCOL
 * =http/json), as a collector would be: every export's raw text, headers and decoded spans.
 */
export async function startOtlpReceiver(port = 0) {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const requests: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push(`${req.method} ${req.url}`);
      headers.push(req.headers);
      bodies.push(text);
      if (req.url === '/v1/traces' && (req.headers['content-type'] ?? '').includes('json')) {
        const body = JSON.parse(text) as ExportBody;
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, service, parentSpanId: s.parentSpanId ?? '', attributes: attributesOf(s.attributes), links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })), status: s.status ?? {} });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    bodies,
    headers,
    /** Every request received, "METHOD /path": anything at all, not only traces. */
    requests,
    /** Resolves once `holds()` is true after an export arrives (or at once); a hang guard, not a timing bar. */
    until(holds: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
      if (holds()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the OTLP receiver never got ${what}`));
        }, timeoutMs);
        const check = () => {
          if (!holds()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
