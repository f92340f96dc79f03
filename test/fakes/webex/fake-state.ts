import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';

/** Everything the fake Webex holds; REST, Mercury and the test controls share it. */

export interface FakePerson {
  uuid: string;
  email: string;
  displayName: string;
  type: 'person' | 'bot';
}

export interface FakeDevice {
  id: string;
  url: string;
  webSocketUrl: string;
  name: string;
  deviceType: string;
  creationTime: string;
  modificationTime: string;
  [key: string]: unknown;
}

export interface FakeMessage {
  uuid: string;
  roomUuid: string;
  personUuid: string;
  markdown?: string;
  text?: string;
  parentUuid?: string;
  attachments?: { contentType: string; content: Record<string, unknown> }[];
  created: string;
}

export interface FakeAction {
  uuid: string;
  messageUuid: string;
  roomUuid: string;
  personUuid: string;
  inputs: Record<string, unknown>;
  created: string;
}

export interface FakeConnection {
  id: number;
  deviceId: string;
  query: URLSearchParams;
  ws: WebSocket;
  authorized: boolean;
  /** Told to move by `shutdown`; retired once its replacement is ready. */
  draining: boolean;
  seq: number;
  closed?: { code: number; reason: string };
}

export interface FakeFailure {
  method?: string;
  /** Matched against the request path, e.g. /\/v1\/messages$/. */
  path: RegExp;
  status: number;
  /** Seconds, or an HTTP date, for the Retry-After header (429). */
  retryAfter?: string;
  times: number;
}

export interface FakeAck {
  messageId: string;
  connectionId: number;
}

export class FakeState {
  readonly changes = new EventEmitter();
  readonly people = new Map<string, FakePerson>();
  readonly rooms = new Set<string>();
  readonly devices = new Map<string, FakeDevice>();
  readonly messages = new Map<string, FakeMessage>();
  readonly actions = new Map<string, FakeAction>();
  readonly connections: FakeConnection[] = [];
  readonly acks: FakeAck[] = [];
  readonly authFrames: unknown[] = [];
  readonly requests: { method: string; path: string }[] = [];
  socketAttempts = 0;
  pings = 0;
  tokenRevoked = false;
  answerPings = true;
  catalogFailure: number | undefined;
  nextRefreshFailure: number | undefined;
  /** Answers Webex gives before handling a call (throttling, outages), consumed in order. */
  readonly failures: FakeFailure[] = [];
  /** WDM's cap on a user's device registrations: beyond it a registration is refused with 403. */
  maxDevices = Number.POSITIVE_INFINITY;

  constructor(
    readonly token: string,
    readonly bot: FakePerson,
    /** Cluster part of room/message/action ids, as a U2C host catalog would make clients use. */
    readonly cluster: string,
  ) {
    this.people.set(bot.uuid, bot);
    this.changes.setMaxListeners(0);
  }

  changed(): void {
    this.changes.emit('change');
  }

  tokenOk(presented: string | undefined): boolean {
    return !this.tokenRevoked && presented === `Bearer ${this.token}`;
  }

  personByEmail(email: string): FakePerson | undefined {
    return [...this.people.values()].find((p) => p.email.toLowerCase() === email.toLowerCase());
  }

  readyConnections(): FakeConnection[] {
    return this.connections.filter((c) => c.authorized && !c.closed);
  }
}
