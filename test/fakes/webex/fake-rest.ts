import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hydraId, parseHydraId } from './fake-hydra';
import type { FakeDevice, FakeMessage, FakeState } from './fake-state';

const MAX_MESSAGE_BYTES = 7439;
const CARD_TYPE = 'application/vnd.microsoft.card.adaptive';

export interface FakeUrls {
  /** http://127.0.0.1:P */
  base: string;
  /** ws://127.0.0.1:P */
  wsBase: string;
}

/** Webex's REST surface as the bot sees it: U2C, WDM and the public API, bearer-checked. */
export function createRestHandler(state: FakeState, urls: FakeUrls) {
  const conversationHost = new URL(urls.base).host;

  const send = (res: ServerResponse, status: number, body?: unknown) => {
    const trackingId = `FAKE_${randomUUID()}`;
    res.writeHead(status, { 'content-type': 'application/json', trackingid: trackingId });
    res.end(body === undefined ? undefined : JSON.stringify(status >= 400 ? { ...(body as object), trackingId } : body));
  };
  const error = (res: ServerResponse, status: number, message: string) => send(res, status, { message, errors: [{ description: message }] });

  const deviceUrl = (id: string) => `${urls.base}/wdm/api/v1/devices/${id}`;

  const newDevice = (body: Record<string, unknown>): FakeDevice => {
    const id = randomUUID();
    const now = new Date().toISOString();
    const device: FakeDevice = {
      ...body,
      id,
      url: deviceUrl(id),
      webSocketUrl: `${urls.wsBase}/mercury/api/v1/apps/wx2/registrations/${id}/messages`,
      name: String(body['name'] ?? 'unnamed'),
      deviceType: String(body['deviceType'] ?? 'UNKNOWN'),
      userId: state.bot.uuid,
      creationTime: now,
      modificationTime: now,
      services: { conversationServiceUrl: `${urls.base}/conversation/api/v1` },
      features: { developer: [], entitlement: [], user: [] },
    };
    state.devices.set(id, device);
    return device;
  };

  const messageJson = (m: FakeMessage) => {
    const person = state.people.get(m.personUuid);
    return {
      id: hydraId('MESSAGE', m.uuid, state.cluster),
      roomId: hydraId('ROOM', m.roomUuid, state.cluster),
      roomType: 'group',
      ...(m.parentUuid ? { parentId: hydraId('MESSAGE', m.parentUuid, state.cluster) } : {}),
      ...(m.text !== undefined ? { text: m.text } : {}),
      ...(m.markdown !== undefined ? { markdown: m.markdown } : {}),
      ...(m.attachments ? { attachments: m.attachments } : {}),
      personId: hydraId('PEOPLE', m.personUuid),
      personEmail: person?.email,
      created: m.created,
    };
  };

  const personJson = (uuid: string) => {
    const p = state.people.get(uuid);
    if (!p) return undefined;
    return { id: hydraId('PEOPLE', p.uuid), emails: [p.email], displayName: p.displayName, type: p.type, created: '2024-01-01T00:00:00.000Z' };
  };

  /** The uuid inside a Hydra id of `type`, or undefined when it is not one (wrong cluster included). */
  const uuidOf = (id: string, type: string): string | undefined => {
    const h = parseHydraId(id);
    if (!h || h.type !== type) return undefined;
    const cluster = type === 'PEOPLE' ? 'us' : state.cluster;
    return h.cluster === cluster ? h.uuid : undefined;
  };

  const createMessage = (res: ServerResponse, body: Record<string, unknown>) => {
    const roomUuid = typeof body['roomId'] === 'string' ? uuidOf(body['roomId'], 'ROOM') : undefined;
    if (!roomUuid || !state.rooms.has(roomUuid)) return error(res, 404, 'Could not find a room with provided ID.');
    const { markdown, text, attachments, parentId } = body;
    if (markdown === undefined && text === undefined) return error(res, 400, 'Message must contain text, markdown or files.');
    for (const [field, v] of [['markdown', markdown], ['text', text]] as const) {
      if (v !== undefined && typeof v !== 'string') return error(res, 400, `${field} must be a string.`);
      if (typeof v === 'string' && Buffer.byteLength(v) > MAX_MESSAGE_BYTES) {
        return error(res, 400, `${field} length exceeds the maximum of ${MAX_MESSAGE_BYTES} bytes.`);
      }
    }
    if (attachments !== undefined) {
      const ok =
        Array.isArray(attachments) &&
        attachments.length === 1 &&
        attachments.every((a) => a?.contentType === CARD_TYPE && a?.content?.type === 'AdaptiveCard');
      if (!ok) return error(res, 400, 'Only one Adaptive Card attachment per message is supported.');
    }
    let parentUuid: string | undefined;
    if (parentId !== undefined) {
      parentUuid = typeof parentId === 'string' ? uuidOf(parentId, 'MESSAGE') : undefined;
      if (!parentUuid || state.messages.get(parentUuid)?.roomUuid !== roomUuid) return error(res, 400, 'Invalid parentId.');
    }
    const m: FakeMessage = {
      uuid: randomUUID(),
      roomUuid,
      personUuid: state.bot.uuid,
      ...(typeof markdown === 'string' ? { markdown, text: markdown.replace(/[*_`#>]/g, '') } : {}),
      ...(typeof text === 'string' ? { text } : {}),
      ...(parentUuid ? { parentUuid } : {}),
      ...(attachments ? { attachments: attachments as FakeMessage['attachments'] } : {}),
      created: new Date().toISOString(),
    };
    state.messages.set(m.uuid, m);
    state.changed();
    send(res, 200, messageJson(m));
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', urls.base);
    const path = url.pathname.replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    state.requests.push({ method, path });
    state.changed();

    if (!state.tokenOk(req.headers.authorization)) {
      return error(res, 401, 'The request requires a valid access token set in the Authorization request header.');
    }
    const failure = state.failures.find((f) => f.times > 0 && f.path.test(path) && (!f.method || f.method === method));
    if (failure) {
      failure.times -= 1;
      if (failure.retryAfter !== undefined) res.setHeader('retry-after', failure.retryAfter);
      return error(res, failure.status, failure.status === 429 ? 'Too Many Requests' : 'Service unavailable');
    }
    let body: Record<string, unknown> = {};
    const raw = await readBody(req);
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return error(res, 400, 'Malformed JSON body.');
      }
    }

    // ---- U2C ----
    if (method === 'GET' && path === '/u2c/api/v1/catalog') {
      if (state.catalogFailure) return error(res, state.catalogFailure, 'Catalog unavailable.');
      if (url.searchParams.get('format') !== 'hostmap') return error(res, 400, 'format=hostmap is required.');
      const clusterId = state.cluster === 'us' ? 'urn:TEAM:us-east-2_a' : state.cluster;
      return send(res, 200, {
        serviceLinks: {
          wdm: `${urls.base}/wdm/api/v1`,
          hydra: `${urls.base}/v1`,
          conversation: `${urls.base}/conversation/api/v1`,
        },
        hostCatalog: {
          [conversationHost]: [{ host: conversationHost, ttl: -1, priority: 5, id: `${clusterId}:conversation` }],
        },
        format: 'hostmap',
      });
    }

    // ---- WDM ----
    if (path === '/wdm/api/v1/devices') {
      if (method === 'GET') return send(res, 200, { devices: [...state.devices.values()] });
      if (method === 'POST') {
        if (typeof body['name'] !== 'string' || typeof body['deviceType'] !== 'string') return error(res, 400, 'name and deviceType are required.');
        if (state.devices.size >= state.maxDevices) return error(res, 403, 'User has excessive device registrations');
        const d = newDevice(body);
        state.changed();
        return send(res, 200, d);
      }
    }
    const deviceMatch = /^\/wdm\/api\/v1\/devices\/([^/]+)$/.exec(path);
    if (deviceMatch) {
      const id = deviceMatch[1] as string;
      const device = state.devices.get(id);
      if (method === 'PUT') {
        if (state.nextRefreshFailure) {
          const status = state.nextRefreshFailure;
          state.nextRefreshFailure = undefined;
          return error(res, status, 'Device not found.');
        }
        if (!device) return error(res, 404, 'Device not found.');
        // The registration API takes back only what it handed out as updatable.
        const refused = ['features', 'mediaCluster', 'etag'].filter((k) => k in body);
        if (refused.length) return error(res, 400, `Fields not updatable: ${refused.join(', ')}.`);
        const updated: FakeDevice = { ...device, ...body, id, url: device.url, webSocketUrl: device.webSocketUrl, modificationTime: new Date().toISOString() };
        state.devices.set(id, updated);
        state.changed();
        return send(res, 200, updated);
      }
      if (!device) return error(res, 404, 'Device not found.');
      if (method === 'GET') return send(res, 200, device);
      if (method === 'DELETE') {
        state.devices.delete(id);
        state.changed();
        return send(res, 204);
      }
    }

    // ---- Public REST ----
    if (method === 'POST' && path === '/v1/messages') return createMessage(res, body);
    const messageMatch = /^\/v1\/messages\/([^/]+)$/.exec(path);
    if (method === 'GET' && messageMatch) {
      const uuid = uuidOf(decodeURIComponent(messageMatch[1] as string), 'MESSAGE');
      const m = uuid ? state.messages.get(uuid) : undefined;
      return m ? send(res, 200, messageJson(m)) : error(res, 404, 'Message not found.');
    }
    const actionMatch = /^\/v1\/attachment\/actions\/([^/]+)$/.exec(path);
    if (method === 'GET' && actionMatch) {
      const uuid = uuidOf(decodeURIComponent(actionMatch[1] as string), 'ATTACHMENT_ACTION');
      const a = uuid ? state.actions.get(uuid) : undefined;
      if (!a) return error(res, 404, 'Attachment action not found.');
      return send(res, 200, {
        id: hydraId('ATTACHMENT_ACTION', a.uuid, state.cluster),
        type: 'submit',
        messageId: hydraId('MESSAGE', a.messageUuid, state.cluster),
        inputs: a.inputs,
        personId: hydraId('PEOPLE', a.personUuid),
        roomId: hydraId('ROOM', a.roomUuid, state.cluster),
        created: a.created,
      });
    }
    if (method === 'GET' && path === '/v1/people/me') return send(res, 200, personJson(state.bot.uuid));
    const personMatch = /^\/v1\/people\/([^/]+)$/.exec(path);
    if (method === 'GET' && personMatch) {
      const uuid = uuidOf(decodeURIComponent(personMatch[1] as string), 'PEOPLE');
      const p = uuid ? personJson(uuid) : undefined;
      return p ? send(res, 200, p) : error(res, 404, 'Person not found.');
    }

    return error(res, 404, `No route for ${method} ${path}.`);
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((e: unknown) => error(res, 500, e instanceof Error ? e.message : String(e)));
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
