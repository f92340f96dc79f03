import type { Socket } from 'node:net';
import { hostname } from 'node:os';
import type { AuditSender, BatchResult } from './sender';
import { connectSyslog, formatRfc5424, type SyslogOptions } from './syslog';

/**
 * RELP, the Reliable Event Logging Protocol rsyslog speaks (imrelp): each message is a command the
 * receiver answers with `rsp` and a status; `200 OK` means it has taken the message. Frames are
 * `TXNR SP COMMAND SP DATALEN [SP DATA] LF`; a session starts with `open` (the offers) and ends
 * with `close`; the server may say `serverclose` (transaction 0) before it goes away.
 */
const OFFERS = 'relp_version=0\nrelp_software=fault-relay\ncommands=syslog';
const MAX_TXNR = 999_999_999;

export interface RelpFrame {
  txnr: number;
  command: string;
  data: string;
}

export const relpFrame = (txnr: number, command: string, data: string): Buffer => {
  const body = Buffer.from(data, 'utf8');
  return Buffer.concat([Buffer.from(`${txnr} ${command} ${body.length}${body.length ? ' ' : ''}`, 'ascii'), body, Buffer.from('\n')]);
};

/** Frames read from a stream as its bytes arrive; a frame that breaks the syntax ends the session. */
export function relpReader(onFrame: (frame: RelpFrame) => void, onError: (error: Error) => void) {
  let buffer = Buffer.alloc(0);
  return (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const head = /^(\d{1,9}) ([a-z]{1,32}) (\d{1,9})([ \n])/.exec(buffer.subarray(0, 64).toString('latin1'));
      if (!head) {
        if (buffer.length >= 64 || /[^\d a-z]/.test(buffer.toString('latin1'))) onError(new Error('the receiver sent something that is not a RELP frame'));
        return;
      }
      const length = Number(head[3]);
      // `… 0\n` ends an empty frame at once; otherwise the data follows the space, then the trailer.
      if (head[4] === '\n') {
        if (length !== 0) return onError(new Error('a RELP frame without its data'));
        onFrame({ txnr: Number(head[1]), command: head[2]!, data: '' });
        buffer = buffer.subarray(head[0].length);
        continue;
      }
      const start = head[0].length;
      if (buffer.length < start + length + 1) return;
      if (buffer[start + length] !== 0x0a) return onError(new Error('a RELP frame without its trailer'));
      onFrame({ txnr: Number(head[1]), command: head[2]!, data: buffer.subarray(start, start + length).toString('utf8') });
      buffer = buffer.subarray(start + length + 1);
    }
  };
}

interface Session {
  command(command: string, data: string): Promise<string>;
  readonly alive: boolean;
  end(): void;
}

async function openSession(opts: SyslogOptions, ackTimeoutMs: number): Promise<Session> {
  const socket: Socket = await connectSyslog(opts);
  const waiting = new Map<number, { resolve: (data: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  let txnr = 0;
  let alive = true;
  const fail = (error: Error) => {
    alive = false;
    socket.destroy();
    for (const w of waiting.values()) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    waiting.clear();
  };
  socket.on(
    'data',
    relpReader((frame) => {
      if (frame.command === 'serverclose') return fail(new Error('the receiver closed the session (serverclose)'));
      const w = frame.command === 'rsp' ? waiting.get(frame.txnr) : undefined;
      if (!w) return fail(new Error(`unexpected RELP ${frame.command} for transaction ${frame.txnr}`));
      waiting.delete(frame.txnr);
      clearTimeout(w.timer);
      w.resolve(frame.data);
    }, fail),
  );
  socket.on('close', () => fail(new Error('the connection closed before the receiver answered')));
  const session: Session = {
    get alive() {
      return alive && !socket.destroyed;
    },
    command(command, data) {
      if (!session.alive) return Promise.reject(new Error('the RELP session is closed'));
      txnr = txnr >= MAX_TXNR ? 1 : txnr + 1;
      const id = txnr;
      return new Promise<string>((resolve, reject) => {
        // A receiver that takes the bytes and never answers (stopped, hung) is not taken to have the message.
        const timer = setTimeout(() => fail(new Error(`no answer to RELP transaction ${id} within ${ackTimeoutMs} ms`)), ackTimeoutMs);
        waiting.set(id, { resolve, reject, timer });
        socket.write(relpFrame(id, command, data));
      });
    },
    end() {
      alive = false;
      socket.end();
    },
  };
  const offer = await session.command('open', OFFERS);
  if (!/^200\b/.test(offer) || !/^commands=.*\bsyslog\b/m.test(offer)) {
    fail(new Error('refused'));
    throw new Error(`the receiver did not open a RELP session for syslog: ${offer.split('\n')[0]!.slice(0, 120)}`);
  }
  return session;
}

/**
 * The audit stream over RELP (relp:// or relp+tls://): every event of a batch is one `syslog`
 * command, and the batch counts as delivered only when the receiver has answered `200` to each.
 * A connection lost before the answers, a refusal or no answer at all leaves the batch in the
 * outbox to be sent again on a new session: at least once, never lost to a receiver's crash.
 */
export function createRelpSender(opts: SyslogOptions & { ackTimeoutMs?: number }): AuditSender {
  const host = opts.host ?? hostname();
  const ackTimeoutMs = opts.ackTimeoutMs ?? 30_000;
  let session: Session | undefined;
  const where = `${opts.target.protocol}://${opts.target.host}:${opts.target.port}`;
  return {
    sink: 'syslog',
    batchSize: opts.batchSize ?? 100,
    async send(events): Promise<BatchResult> {
      try {
        if (!session?.alive) session = await openSession(opts, ackTimeoutMs);
        const s = session;
        const answers = await Promise.all(events.map((e) => s.command('syslog', formatRfc5424(e, host))));
        const refused = answers.find((a) => !/^200\b/.test(a));
        if (refused === undefined) return { ok: true };
        s.end();
        return { ok: false, permanent: false, reason: `relp ${where}: the receiver answered ${refused.split('\n')[0]!.slice(0, 120)}` };
      } catch (error) {
        session?.end();
        session = undefined;
        const e = error as NodeJS.ErrnoException;
        return { ok: false, permanent: false, reason: `relp ${where}: ${e.code ?? e.message}` };
      }
    },
    async close() {
      const s = session;
      session = undefined;
      if (!s?.alive) return;
      // The polite end: `close`, answered, then the connection; a receiver gone already is no matter.
      await s.command('close', '').catch(() => undefined);
      s.end();
    },
  };
}
