import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeJwe } from './fake-jwe';
import { hydraId, parseHydraId } from './fake-hydra';
import { createMercuryServer } from './fake-mercury';
import { createRestHandler } from './fake-rest';
import { FakeState, type FakeAck, type FakeDevice, type FakePerson } from './fake-state';

export interface WebexFakeOptions {
  /** The only bearer token the fake accepts (REST and the websocket's authorization frame). */
  token: string;
  /** Hydra ROOM id of the room the bot is a member of (see `newRoomId`). */
  roomId: string;
  host?: string;
  port?: number;
  /** The name its URLs carry instead of its address (as Webex's public names), e.g. to be reached through a proxy. */
  publicName?: string;
  /** Cluster of room/message/action ids; `us` by default, e.g. `urn:TEAM:eu-central-1_k`. */
  cluster?: string;
  botEmail?: string;
}

export interface PostedMessage {
  id: string;
  roomId: string;
  parentId?: string;
  markdown?: string;
  text?: string;
  attachments?: { contentType: string; content: Record<string, unknown> }[];
  created: string;
}

export interface CardClick {
  /** Hydra id of the attachment action, as REST returns it. */
  actionId: string;
  /** Ids of the websocket envelopes that carried it (one per connected socket). */
  envelopeIds: string[];
  /** Delivers the same activity again, in new envelopes. */
  replay(): string[];
}

export interface WebexFake {
  u2cUrl: string;
  apiUrl: string;
  /** Where the catalog points devices: http://…/wdm/api/v1 */
  wdmUrl: string;
  bot: { id: string; email: string };
  stop(): Promise<void>;

  /** A person submits a card: the attachment action is created and the cardAction activity emitted. */
  submitCard(input: { messageId: string; personEmail: string; roomId?: string; inputs: Record<string, unknown> }): CardClick;
  /** Like a click on the button titled `title` of a posted card: submits that Action.Submit's data. */
  clickCardButton(input: { messageId: string; title: string; personEmail: string; roomId?: string; inputs?: Record<string, unknown> }): CardClick;
  /** Server-side close of every open socket; 1006 means the connection just dies. */
  dropSocket(code: number, reason?: string): void;
  /** Mercury's "please move" frame on every ready socket. */
  sendShutdown(): void;
  /** Every later REST call and authorization frame is refused. */
  revokeToken(): void;
  failCatalog(status: number | undefined): void;
  /** The next device refresh (PUT) answers with this status. */
  failNextDeviceRefresh(status?: number): void;
  /** The next `times` matching calls get `status` (429 with Retry-After, 5xx) before being handled. */
  failNext(f: { method?: string; path: RegExp; status: number; retryAfter?: string; times?: number }): void;
  /** WDM refuses registrations beyond this many devices (403 excessive device registrations). */
  capDevices(max: number): void;
  /** Pongs stop (a half-dead connection). */
  answerPings(on: boolean): void;
  addPerson(p: { email: string; displayName?: string }): { id: string; email: string };
  addRoom(): string;
  addDevice(p: { name: string; deviceType?: string }): FakeDevice;
  /** The device vanishes server-side (its socket URL then answers 404). */
  deleteDevice(id: string): void;

  postedMessages(roomId?: string): PostedMessage[];
  acks(): FakeAck[];
  devices(): FakeDevice[];
  connections(): { id: number; deviceId: string; authorized: boolean; closed?: { code: number; reason: string }; query: Record<string, string> }[];
  authFrames(): unknown[];
  requests(): { method: string; path: string }[];
  socketAttempts(): number;
  pings(): number;
  /** Resolves once `check()` holds, re-checked on every change inside the fake. */
  until(check: () => boolean): Promise<void>;
}

/** Generates a Hydra ROOM id for a fresh room. */
export function newRoomId(cluster = 'us'): string {
  return hydraId('ROOM', randomUUID(), cluster);
}

export async function startWebexFake(opts: WebexFakeOptions): Promise<WebexFake> {
  const cluster = opts.cluster ?? 'us';
  const room = parseHydraId(opts.roomId);
  if (!room || room.type !== 'ROOM') throw new Error('webex fake: roomId must be a Hydra ROOM id (use newRoomId())');
  const bot: FakePerson = { uuid: randomUUID(), email: opts.botEmail ?? 'fault-relay@webex.bot', displayName: 'Fault Relay', type: 'bot' };
  const state = new FakeState(opts.token, bot, cluster);
  state.rooms.add(room.uuid);

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { address: boundAddress, port } = server.address() as AddressInfo;
  const address = opts.publicName ?? boundAddress;
  const base = `http://${address}:${port}`;
  const mercury = createMercuryServer(state);
  server.on('request', createRestHandler(state, { base, wsBase: `ws://${address}:${port}` }));
  server.on('upgrade', (req, socket, head) => mercury.handleUpgrade(req, socket, head));

  const roomUuidOf = (roomId: string) => {
    const h = parseHydraId(roomId);
    if (!h || h.type !== 'ROOM') throw new Error(`webex fake: ${roomId} is not a Hydra ROOM id`);
    return h.uuid;
  };

  const personFor = (email: string): FakePerson => {
    const existing = state.personByEmail(email);
    if (existing) return existing;
    const p: FakePerson = { uuid: randomUUID(), email, displayName: email.split('@')[0] ?? email, type: 'person' };
    state.people.set(p.uuid, p);
    return p;
  };

  const submitCard: WebexFake['submitCard'] = (input) => {
    const msg = parseHydraId(input.messageId);
    const message = msg && msg.type === 'MESSAGE' ? state.messages.get(msg.uuid) : undefined;
    if (!message?.attachments?.length) throw new Error(`webex fake: ${input.messageId} is not a card message posted here`);
    const person = personFor(input.personEmail);
    const roomUuid = input.roomId ? roomUuidOf(input.roomId) : message.roomUuid;
    const uuid = randomUUID();
    const created = new Date().toISOString();
    state.actions.set(uuid, { uuid, messageUuid: message.uuid, roomUuid, personUuid: person.uuid, inputs: input.inputs, created });
    const activity = {
      id: uuid,
      objectType: 'activity',
      verb: 'cardAction',
      published: created,
      url: `${base}/conversation/api/v1/activities/${uuid}`,
      encryptionKeyUrl: `kms://kms-fake.wbx2.com/keys/${randomUUID()}`,
      actor: {
        id: person.uuid,
        objectType: 'person',
        displayName: person.displayName,
        emailAddress: person.email,
        entryUUID: person.uuid,
        type: person.type === 'bot' ? 'ROBOT' : 'PERSON',
      },
      object: { objectType: 'submit', inputs: fakeJwe(`kms://kms-fake.wbx2.com/keys/${randomUUID()}`) },
      parent: { id: message.uuid, type: 'cardAction' },
      target: { id: roomUuid, objectType: 'conversation', url: `${base}/conversation/api/v1/conversations/${roomUuid}`, tags: [] },
    };
    const envelopeIds = mercury.emit({ eventType: 'conversation.activity', activity });
    state.changed();
    // Mercury may deliver an activity again (a buffered replay after a reconnect): the same id, a new envelope.
    const replay = () => mercury.emit({ eventType: 'conversation.activity', activity });
    return { actionId: hydraId('ATTACHMENT_ACTION', uuid, cluster), envelopeIds, replay };
  };

  const posted = (): PostedMessage[] =>
    [...state.messages.values()].map((m) => ({
      id: hydraId('MESSAGE', m.uuid, cluster),
      roomId: hydraId('ROOM', m.roomUuid, cluster),
      ...(m.parentUuid ? { parentId: hydraId('MESSAGE', m.parentUuid, cluster) } : {}),
      ...(m.markdown !== undefined ? { markdown: m.markdown } : {}),
      ...(m.text !== undefined ? { text: m.text } : {}),
      ...(m.attachments ? { attachments: m.attachments } : {}),
      created: m.created,
    }));

  return {
    u2cUrl: `${base}/u2c/api/v1`,
    apiUrl: `${base}/v1`,
    wdmUrl: `${base}/wdm/api/v1`,
    bot: { id: hydraId('PEOPLE', bot.uuid), email: bot.email },

    async stop() {
      mercury.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },

    submitCard,
    clickCardButton(input) {
      const msg = parseHydraId(input.messageId);
      const card = msg ? state.messages.get(msg.uuid)?.attachments?.[0]?.content : undefined;
      const actions = (card?.['actions'] ?? []) as { type?: string; title?: string; data?: Record<string, unknown> }[];
      const button = actions.find((a) => a.type === 'Action.Submit' && a.title === input.title);
      if (!button) throw new Error(`webex fake: no Action.Submit titled ${input.title} on ${input.messageId}`);
      return submitCard({ ...input, inputs: { ...(input.inputs ?? {}), ...(button.data ?? {}) } });
    },
    dropSocket(code, reason = '') {
      for (const c of state.connections) {
        if (c.closed) continue;
        if (code === 1006) c.ws.terminate();
        else c.ws.close(code, reason);
      }
    },
    sendShutdown() {
      for (const c of state.readyConnections()) {
        c.draining = true;
        c.ws.send(JSON.stringify({ id: randomUUID(), type: 'shutdown' }));
      }
      state.changed();
    },
    revokeToken() {
      state.tokenRevoked = true;
    },
    failCatalog(status) {
      state.catalogFailure = status;
    },
    failNextDeviceRefresh(status = 404) {
      state.nextRefreshFailure = status;
    },
    failNext(f) {
      state.failures.push({ ...f, times: f.times ?? 1 });
    },
    capDevices(max) {
      state.maxDevices = max;
    },
    answerPings(on) {
      state.answerPings = on;
    },
    addPerson(p) {
      const person = personFor(p.email);
      if (p.displayName) person.displayName = p.displayName;
      return { id: hydraId('PEOPLE', person.uuid), email: person.email };
    },
    addRoom() {
      const uuid = randomUUID();
      state.rooms.add(uuid);
      return hydraId('ROOM', uuid, cluster);
    },
    addDevice(p) {
      const id = randomUUID();
      // Each added device is a little older than the one before: "oldest" is well defined.
      const now = new Date(Date.now() - 60_000 - 1000 * (100 - state.devices.size)).toISOString();
      const device: FakeDevice = {
        id,
        url: `${base}/wdm/api/v1/devices/${id}`,
        webSocketUrl: `ws://${address}:${port}/mercury/api/v1/apps/wx2/registrations/${id}/messages`,
        name: p.name,
        deviceType: p.deviceType ?? 'DESKTOP',
        userId: bot.uuid,
        creationTime: now,
        modificationTime: now,
      };
      state.devices.set(id, device);
      state.changed();
      return device;
    },
    deleteDevice(id) {
      state.devices.delete(id);
      state.changed();
    },

    postedMessages: (roomId) => posted().filter((m) => roomId === undefined || m.roomId === roomId),
    acks: () => [...state.acks],
    devices: () => [...state.devices.values()],
    connections: () =>
      state.connections.map((c) => ({
        id: c.id,
        deviceId: c.deviceId,
        authorized: c.authorized,
        ...(c.closed ? { closed: c.closed } : {}),
        query: Object.fromEntries(c.query),
      })),
    authFrames: () => [...state.authFrames],
    requests: () => [...state.requests],
    socketAttempts: () => state.socketAttempts,
    pings: () => state.pings,
    until(check) {
      return new Promise<void>((resolve) => {
        if (check()) return resolve();
        const onChange = () => {
          if (!check()) return;
          state.changes.off('change', onChange);
          resolve();
        };
        state.changes.on('change', onChange);
      });
    },
  };
}
