import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { DeviceError } from '../errors';
import type { DeviceEntry } from '../inventory';
import { connectSsh } from '../ssh-connect';
import { Deframer, frame, FramingError } from './framing';
import { failures, NETCONF_NS, NetconfRpcError, parseRpcErrors } from './rpc-error';
import { attr, child, elements, escapeXml, parseXml, textOf, XmlError, type XmlElement } from '../../../runbooks/xml';
import { errorText } from '../../../core/error-body';

export const BASE_10 = 'urn:ietf:params:netconf:base:1.0';
export const BASE_11 = 'urn:ietf:params:netconf:base:1.1';
/** yuma123's namespace: its netconfd lists it in the hello, and needs the two workarounds marked "netconfd". */
export const YUMA_NCX = 'http://netconfcentral.org/ns/yuma-ncx';

/** An RPC that reads nothing: a subtree filter no module matches (RFC 6241 §6.4.2 answers an empty <data/>). */
const PROBE = '<get-config><source><running/></source><filter type="subtree"><probe xmlns="urn:fault-relay:session-probe"/></filter></get-config>';
/** How often a stalled first request is nudged (netconfd, see `settle`). Only latency depends on it, never the outcome. */
const NUDGE_MS = 250;

interface Pending {
  what: string;
  resolve: (reply: XmlElement) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface NetconfSessionOptions {
  /** For messages: the inventory's device name. */
  device: string;
  /** Limit for the hello and for each RPC; on expiry the session is closed. */
  timeoutMs: number;
  /** Offer base:1.1 (chunked framing). Off only to exercise a 1.0-only peer. */
  offer11?: boolean;
  /** Ends the transport under the stream (the SSH connection). */
  hangUp?: () => void;
}

/**
 * One NETCONF session on a byte stream (in production the SSH `netconf` subsystem channel): the
 * hello exchange, framing, message-id matching and rpc-error parsing. Every RPC has a deadline; one
 * that passes closes the whole session, because a reply that comes later would belong to no one and
 * the device's view of the session (its locks, a pending confirmed commit) must not outlive ours:
 * on session close the device releases the locks and reverts an unconfirmed commit (RFC 6241 §8.4).
 */
export class NetconfSession {
  private readonly deframer = new Deframer();
  private readonly pending = new Map<string, Pending>();
  /** Message-ids of nudges (see `settle`): their replies are expected and dropped, and may never come. */
  private readonly nudges = new Set<string>();
  private nextId = 1;
  private closedWith: DeviceError | undefined;
  private helloWaiter: ((hello: XmlElement) => void) | undefined;
  private failHello: ((e: DeviceError) => void) | undefined;
  capabilities: string[] = [];
  sessionId = '';
  /** Warnings (`<rpc-error>` with severity warning) since the last `takeWarnings`, for the caller to report. */
  private warnings: string[] = [];

  private constructor(
    private readonly stream: Duplex,
    private readonly opts: NetconfSessionOptions,
  ) {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('close', () => this.fail(new DeviceError('session_lost', `${opts.device}: the NETCONF session closed`, true)));
    stream.on('error', (e: Error) => this.fail(new DeviceError('session_lost', `${opts.device}: NETCONF session error: ${e.message}`, true)));
  }

  /** Connects over SSH, opens the `netconf` subsystem (RFC 6242 §3) and exchanges hellos. */
  static async open(device: DeviceEntry, knownHostsPath: string, opts: { timeoutMs?: number; offer11?: boolean } = {}): Promise<NetconfSession> {
    const client: Client = await connectSsh(device, knownHostsPath);
    // ssh2's `subsys` is the SSH "subsystem" channel request (RFC 4254 §6.5) for `netconf`.
    const channel = await new Promise<ClientChannel>((resolve, reject) => client.subsys('netconf', (error, stream) => (error ? reject(error) : resolve(stream)))).catch(
      (error: unknown) => {
        client.end();
        throw new DeviceError('session_lost', `${device.name}: the device refused the NETCONF subsystem: ${errorText(error)}`, true);
      },
    );
    client.on('close', () => channel.destroy());
    // Nothing is expected on stderr, but an unread stderr would hold back the channel's window.
    channel.stderr.resume();
    return NetconfSession.start(channel, { device: device.name, timeoutMs: opts.timeoutMs ?? device.command_timeout_ms, offer11: opts.offer11, hangUp: () => client.end() });
  }

  /** Starts NETCONF on an open stream: sends our hello, waits for the server's. */
  static async start(stream: Duplex, opts: NetconfSessionOptions): Promise<NetconfSession> {
    const session = new NetconfSession(stream, opts);
    const offered = opts.offer11 === false ? [BASE_10] : [BASE_10, BASE_11];
    const hello = new Promise<XmlElement>((resolve, reject) => {
      const timer = setTimeout(() => {
        void session.close();
        reject(new DeviceError('timeout', `${opts.device}: no NETCONF hello within ${opts.timeoutMs / 1000} s`, true));
      }, opts.timeoutMs);
      session.helloWaiter = (h) => {
        clearTimeout(timer);
        resolve(h);
      };
      session.failHello = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
    stream.write(frame(`<?xml version="1.0" encoding="UTF-8"?><hello xmlns="${NETCONF_NS}"><capabilities>${offered.map((c) => `<capability>${c}</capability>`).join('')}</capabilities></hello>`, '1.0'));
    const theirs = await hello;
    session.capabilities = elements(child(theirs, 'capabilities', NETCONF_NS) ?? theirs).map((c) => textOf(c));
    session.sessionId = textOf(child(theirs, 'session-id', NETCONF_NS));
    if (!session.capabilities.includes(BASE_10) && !session.capabilities.includes(BASE_11)) {
      void session.close();
      throw new DeviceError('rejected', `${opts.device}: the NETCONF hello lists no base capability`, true);
    }
    // RFC 6242 §4.1: chunked framing when both sides list base:1.1, end-of-message framing otherwise.
    if (offered.includes(BASE_11) && session.capabilities.includes(BASE_11)) session.deframer.useChunked();
    if (session.has(YUMA_NCX)) await session.settle();
    return session;
  }

  /**
   * netconfd (yuma123 2.13): when our hello and the first chunk-framed RPC reach it in one read, it
   * parses the whole read with the hello's end-of-message framing and leaves the RPC unanswered
   * until more input arrives (measured: the RPC is answered the moment a second one is sent, or the
   * session closes). So the first request on such a session is an empty read, and while it is
   * unanswered another one is sent every NUDGE_MS: each new input makes netconfd read what it holds.
   * The nudges' replies are dropped.
   */
  private async settle(): Promise<void> {
    const first = this.rpc(PROBE, 'the first request after the hello');
    const nudge = setInterval(() => this.send(PROBE, this.nudges), NUDGE_MS);
    try {
      await first;
    } finally {
      clearInterval(nudge);
    }
  }

  /** Writes one RPC; returns its message-id. `into` remembers the id when no one waits for the reply. */
  private send(body: string, into?: Set<string>): string {
    const id = String(this.nextId++);
    const bytes = frame(`<rpc message-id="${escapeXml(id)}" xmlns="${NETCONF_NS}">${body}</rpc>`, this.deframer.framing);
    into?.add(id);
    if (!this.closedWith) this.stream.write(bytes);
    return id;
  }

  takeWarnings(): string[] {
    return this.warnings.splice(0);
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  get framing() {
    return this.deframer.framing;
  }

  /** True when the server listed the capability (compared without its `?query`). */
  has(capability: string): boolean {
    return this.capabilities.some((c) => c.split('?')[0] === capability);
  }

  /**
   * Sends one RPC (the XML inside `<rpc>`) and returns the `<rpc-reply>`. A reply with an error
   * (not a warning) throws NetconfRpcError; no reply in time closes the session and throws `timeout`.
   */
  rpc(body: string, what: string, timeoutMs = this.opts.timeoutMs): Promise<XmlElement> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise<XmlElement>((resolve, reject) => {
      let id: string;
      try {
        id = this.send(body);
      } catch (error) {
        // Refused by the framing before anything was written (a 1.0 message holding "]]>]]>").
        reject(error instanceof FramingError ? new DeviceError('not_in_grammar', `${this.opts.device}: ${error.message}`) : error);
        return;
      }
      const timer = setTimeout(() => {
        const error = new DeviceError('timeout', `${this.opts.device}: no reply to ${what} within ${timeoutMs / 1000} s; the NETCONF session was closed (the device releases its locks and reverts an unconfirmed commit)`, true);
        this.fail(error);
        this.hangUp();
      }, timeoutMs);
      this.pending.set(id, { what, resolve, reject, timer });
    }).then((reply) => {
      const errors = parseRpcErrors(reply);
      const failed = failures(errors);
      if (failed.length) throw new NetconfRpcError(what, failed);
      this.warnings.push(...errors.filter((e) => e.severity === 'warning').map((e) => `${what}: ${e.message ?? e.tag}`));
      return reply;
    });
  }

  private receive(chunk: Buffer): void {
    let messages: string[];
    try {
      messages = this.deframer.push(chunk);
    } catch (error) {
      this.protocolError(`broken framing: ${errorText(error)}`);
      return;
    }
    for (const text of messages) {
      if (this.closedWith) return;
      let message: XmlElement;
      try {
        message = parseXml(text);
      } catch (error) {
        this.protocolError(`a message that is not XML (${error instanceof XmlError ? error.message : String(error)})`);
        return;
      }
      this.dispatch(message);
    }
  }

  private dispatch(message: XmlElement): void {
    if (message.ns !== NETCONF_NS && message.local !== 'notification') return this.protocolError(`an unexpected <${message.name}> message`);
    if (message.local === 'hello') {
      if (!this.helloWaiter) return this.protocolError('a second hello');
      const waiter = this.helloWaiter;
      this.helloWaiter = undefined;
      this.failHello = undefined;
      return waiter(message);
    }
    if (this.helloWaiter) return this.protocolError(`<${message.local}> before the hello`);
    // Notifications only come after a subscription, which this client never makes.
    if (message.local === 'notification') return;
    if (message.local !== 'rpc-reply') return this.protocolError(`an unexpected <${message.local}> message`);
    const id = attr(message, 'message-id');
    if (id !== undefined && this.nudges.delete(id)) return;
    // RFC 6241 §4.1: a reply without message-id answers an RPC the server could not read; only
    // when a single RPC is outstanding can it be attributed.
    const key = id ?? (this.pending.size === 1 ? [...this.pending.keys()][0]! : undefined);
    const waiting = key === undefined ? undefined : this.pending.get(key);
    if (!waiting) return this.protocolError(`a reply to message-id ${id ?? '(none)'}, which no RPC is waiting for`);
    this.pending.delete(key!);
    clearTimeout(waiting.timer);
    waiting.resolve(message);
  }

  /** The peer broke the protocol: nothing it says next can be trusted, so the session ends. */
  private protocolError(why: string): void {
    this.fail(new DeviceError('session_lost', `${this.opts.device}: NETCONF protocol error: ${why}; the session was closed`, true));
    this.hangUp();
  }

  private fail(error: DeviceError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.failHello?.(error);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
  }

  private hangUp(): void {
    this.stream.end();
    this.stream.destroy();
    this.opts.hangUp?.();
  }

  /** Cuts the transport without a word to the server, as a network failure would. */
  abort(): void {
    this.fail(new DeviceError('session_lost', `${this.opts.device}: the NETCONF session was cut`, true));
    this.hangUp();
  }

  /**
   * Ends the session: `<close-session>` first when it is usable (so the server logs an orderly end),
   * then the transport. A confirmed commit still pending is reverted by the device when it sees the
   * session end (RFC 6241 §8.4.1).
   */
  async close(graceMs = 2_000): Promise<void> {
    if (!this.closedWith && !this.helloWaiter) await this.rpc('<close-session/>', 'close-session', graceMs).catch(() => {});
    this.fail(new DeviceError('session_lost', `${this.opts.device}: NETCONF session closed`, false));
    this.hangUp();
  }
}
