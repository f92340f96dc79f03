import { connect as tcpConnect, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import type { AuditEvent } from './schema';
import type { AuditSender, BatchResult } from './sender';

/** `log audit` (RFC 5424 facility 13). */
const FACILITY = 13;
const NOTICE = 5;
const WARNING = 4;
/** IANA's enterprise number for documentation (RFC 5612): the SD-ID is ours, not a registered one. */
export const SD_ID = 'fault-relay@32473';
const APP_NAME = 'fault-relay';

/** PRINTUSASCII without spaces, as RFC 5424 header fields must be; `-` when nothing is left. */
const headerField = (value: string, max: number) => value.replace(/[^\x21-\x7e]/g, '_').slice(0, max) || '-';
/** Inside a PARAM-VALUE `"`, `\` and `]` are escaped with a backslash. */
const paramValue = (value: string) => value.replace(/[\\"\]]/g, (c) => `\\${c}`);

const severityOf = (event: AuditEvent) =>
  event.type === 'auth.failed' || event.type === 'rollback' || event.type === 'escalation' || (event.type === 'decision' && event.outcome === 'DENIED') ? WARNING : NOTICE;

/**
 * One RFC 5424 message: the event's identifiers as structured data (a receiver can index them
 * without reading JSON) and the whole event as JSON in MSG. Every value here is the relay's own or
 * an identifier; the framing (octet counting) keeps any byte in MSG from starting a new message.
 */
export function formatRfc5424(event: AuditEvent, host: string, procId: number | string = process.pid): string {
  const params: [string, string | null][] = [
    ['id', event.id],
    ['type', event.type],
    ['incident', event.incident_id],
    ['evidence_sha256', event.evidence_sha256],
    ['request_id', event.request_id],
    ['lines_sha256', event.lines_sha256],
    ['actor', event.actor],
    ['channel', event.channel],
    ['outcome', event.outcome],
  ];
  const sd = `[${SD_ID}${params
    .filter((p): p is [string, string] => p[1] !== null)
    .map(([k, v]) => ` ${k}="${paramValue(v)}"`)
    .join('')}]`;
  const pri = FACILITY * 8 + severityOf(event);
  return `<${pri}>1 ${event.time} ${headerField(host, 255)} ${APP_NAME} ${headerField(String(procId), 128)} ${headerField(event.type, 32)} ${sd} ${JSON.stringify(event)}`;
}

/** RFC 6587 octet counting: the message's length in bytes, a space, the message. */
export const octetCounted = (message: string) => `${Buffer.byteLength(message, 'utf8')} ${message}`;

export interface SyslogTarget {
  /** tcp/tls: RFC 5425/6587, delivered once written; relp/relp+tls: RELP, delivered once the receiver answers 200. */
  protocol: 'tcp' | 'tls' | 'relp' | 'relp+tls';
  host: string;
  port: number;
}

/** `tcp://host:port`, `tls://host:port`, `relp://host:port` or `relp+tls://host:port` (SYSLOG_URL). */
export function parseSyslogUrl(text: string): SyslogTarget | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: 'expected tcp://host:port, tls://host:port, relp://host:port or relp+tls://host:port' };
  }
  const protocol = url.protocol.replace(/:$/, '');
  if (protocol !== 'tcp' && protocol !== 'tls' && protocol !== 'relp' && protocol !== 'relp+tls') return { error: `unsupported scheme ${protocol}: expected tcp://, tls://, relp:// or relp+tls://` };
  if (!url.hostname || !url.port) return { error: 'expected a host and a port, as tcp://host:port or relp://host:port' };
  return { protocol, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) };
}

export interface SyslogOptions {
  target: SyslogTarget;
  /** PEM of the CA that signed the receiver's certificate (SYSLOG_CA_FILE); the system's CAs otherwise. */
  ca?: string;
  host?: string;
  batchSize?: number;
  connectTimeoutMs?: number;
}

/** A connection to the receiver (TLS for tls:// and relp+tls://), its later errors ending it quietly. */
export function connectSyslog(opts: Pick<SyslogOptions, 'target' | 'ca' | 'connectTimeoutMs'>): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const { target } = opts;
    const s: Socket =
      target.protocol === 'tls' || target.protocol === 'relp+tls'
        ? tlsConnect({ host: target.host, port: target.port, servername: target.host, ...(opts.ca ? { ca: opts.ca } : {}) }, () => done())
        : tcpConnect({ host: target.host, port: target.port }, () => done());
    const timer = setTimeout(() => s.destroy(new Error('connect timed out')), opts.connectTimeoutMs ?? 10_000);
    const done = () => {
      clearTimeout(timer);
      s.off('error', fail);
      s.on('error', () => s.destroy());
      resolve(s);
    };
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    s.once('error', fail);
  });
}

/**
 * RFC 5424 over TCP (RFC 6587 octet counting) or TLS (RFC 5425), on one connection kept open and
 * made again after any error. A batch counts as sent once the socket has taken all of it: delivered
 * once written, so a receiver that dies holding what it read loses it (RELP, relp.ts, does not).
 */
export function createSyslogSender(opts: SyslogOptions): AuditSender {
  const host = opts.host ?? hostname();
  let socket: Socket | undefined;
  const connect = async () => {
    const s = await connectSyslog(opts);
    s.on('close', () => void (socket === s && (socket = undefined)));
    return s;
  };

  return {
    sink: 'syslog',
    batchSize: opts.batchSize ?? 100,
    async send(events): Promise<BatchResult> {
      const frames = events.map((e) => octetCounted(formatRfc5424(e, host))).join('');
      try {
        if (!socket || socket.destroyed || !socket.writable) socket = await connect();
        const s = socket;
        await new Promise<void>((resolve, reject) => s.write(frames, 'utf8', (error) => (error ? reject(error) : resolve())));
        return { ok: true };
      } catch (error) {
        socket?.destroy();
        socket = undefined;
        const e = error as NodeJS.ErrnoException;
        return { ok: false, permanent: false, reason: `syslog ${opts.target.protocol}://${opts.target.host}:${opts.target.port}: ${e.code ?? e.message}` };
      }
    },
    async close() {
      const s = socket;
      socket = undefined;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        s.end();
        setTimeout(() => s.destroy(), 2_000).unref();
      });
    },
  };
}
