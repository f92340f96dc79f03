import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A local Slack that speaks the wire protocol the relay uses: the Web API over HTTP (JSON POST,
 * bearer tokens, `ok:false` errors, 429 with Retry-After) and Socket Mode over a websocket
 * (`hello`, envelopes that must be acked, `disconnect` frames). Tests drive it; it never sleeps.
 */
export interface SlackFakeOptions {
  appToken: string;
  botToken: string;
  appId: string;
  teamId: string;
  channelId: string;
  /** Slack member id → e-mail (users.info). */
  users?: Record<string, string>;
  /** The host name in the URLs it hands out (e.g. `slack.test`, which only a test proxy resolves); default 127.0.0.1. */
  publicName?: string;
}
export interface PostedMessage {
  ts: string;
  channel: string;
  text?: string;
  blocks?: Record<string, unknown>[];
}

export async function startSlackFake(opts: SlackFakeOptions) {
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  const messages: PostedMessage[] = [];
  const updates: PostedMessage[] = [];
  const ephemerals: { user: string; text: string }[] = [];
  const calls: string[] = [];
  const acked = new Set<string>();
  const sockets: WebSocket[] = [];
  const tickets = new Set<string>();
  const rateLimited = new Map<string, number>();
  let rateLimitedAnswers = 0;
  let opened = 0;
  let extraConnections = 0;
  // The most sockets open at once: a team must never hold two outside a refresh handover.
  let peakSockets = 0;
  let seq = 0;

  const server = createServer((req, res) => void handle(req, res));
  // Pongs by hand, so a test can play a socket that went silent.
  const wss = new WebSocketServer({ noServer: true, autoPong: false });
  let silent = false;
  let pings = 0;
  server.on('upgrade', (req, socket, head) => {
    const ticket = new URL(req.url ?? '/', 'http://x').searchParams.get('ticket') ?? '';
    // Single-use, like Slack's: a reused URL is refused.
    if (!tickets.delete(ticket)) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.push(ws);
      peakSockets = Math.max(peakSockets, sockets.length);
      ws.on('ping', (data) => {
        pings++;
        if (!silent) ws.pong(data);
        changed();
      });
      ws.on('message', (raw) => {
        const frame = JSON.parse(raw.toString()) as { envelope_id?: string };
        if (frame.envelope_id) acked.add(frame.envelope_id);
        changed();
      });
      ws.on('close', () => {
        sockets.splice(sockets.indexOf(ws), 1);
        changed();
      });
      ws.send(JSON.stringify({ type: 'hello', num_connections: sockets.length + extraConnections, debug_info: { host: 'fake' } }));
      changed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://${opts.publicName ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = (req.url ?? '').replace(/^\/api\//, '');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>) : {};
    calls.push(method);
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(json));
      changed();
    };
    const limited = rateLimited.get(method);
    if (limited !== undefined) {
      rateLimited.delete(method);
      rateLimitedAnswers++;
      return answer(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limited) });
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (method === 'apps.connections.open') {
      if (token !== opts.appToken) return answer(200, { ok: false, error: 'invalid_auth' });
      const ticket = randomUUID();
      tickets.add(ticket);
      opened++;
      return answer(200, { ok: true, url: `${base.replace('http', 'ws')}/link/?ticket=${ticket}` });
    }
    if (token !== opts.botToken) return answer(200, { ok: false, error: token === opts.appToken ? 'not_allowed_token_type' : 'invalid_auth' });
    switch (method) {
      case 'auth.test':
        return answer(200, { ok: true, team_id: opts.teamId, user_id: 'UBOT', bot_id: 'BFAKE' });
      case 'bots.info':
        return answer(200, { ok: true, bot: { id: body.bot, app_id: opts.appId } });
      case 'users.info': {
        const email = opts.users?.[String(body.user)];
        return email ? answer(200, { ok: true, user: { id: body.user, profile: { email } } }) : answer(200, { ok: false, error: 'user_not_found' });
      }
      case 'chat.postMessage': {
        if (body.channel !== opts.channelId) return answer(200, { ok: false, error: 'channel_not_found' });
        const m: PostedMessage = { ts: `1700000000.${String(++seq).padStart(6, '0')}`, channel: String(body.channel), text: body.text as string, blocks: body.blocks as PostedMessage['blocks'] };
        messages.push(m);
        return answer(200, { ok: true, ts: m.ts, channel: m.channel });
      }
      case 'chat.update': {
        const m = messages.find((x) => x.ts === body.ts);
        if (!m) return answer(200, { ok: false, error: 'message_not_found' });
        updates.push({ ts: m.ts, channel: m.channel, text: body.text as string, blocks: body.blocks as PostedMessage['blocks'] });
        return answer(200, { ok: true, ts: m.ts, channel: m.channel });
      }
      case 'chat.postEphemeral':
        ephemerals.push({ user: String(body.user), text: String(body.text) });
        return answer(200, { ok: true, message_ts: 'e' });
      default:
        return answer(200, { ok: false, error: 'unknown_method' });
    }
  }

  const newest = () => {
    const ws = sockets.at(-1);
    if (!ws) throw new Error('slack fake: no websocket is connected');
    return ws;
  };

  return {
    apiUrl: `${base}/api`,
    messages,
    updates,
    ephemerals,
    calls,
    acked: (id: string) => acked.has(id),
    connectionsOpened: () => opened,
    openSockets: () => sockets.length,
    peakSockets: () => peakSockets,
    rateLimitedAnswers: () => rateLimitedAnswers,
    /** The next call of `method` is answered 429 with this Retry-After. */
    rateLimitNext(method: string, retryAfterSeconds: number) {
      rateLimited.set(method, retryAfterSeconds);
    },
    pings: () => pings,
    /** Stops answering pings: the socket looks alive to TCP but is dead to Slack. */
    goSilent() {
      silent = true;
    },
    /** Other holders of the app token, counted in every later hello. */
    setExtraConnections(n: number) {
      extraConnections = n;
    },
    disconnect(reason: string) {
      newest().send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake' } }));
    },
    /** A button click as a `block_actions` envelope; `envelopeId` repeats an earlier one (Slack's retry). */
    click(c: { user: string; value: string; appId?: string; teamId?: string; channelId?: string; envelopeId?: string }): string {
      const envelope_id = c.envelopeId ?? randomUUID();
      const channel = c.channelId ?? opts.channelId;
      const payload = {
        type: 'block_actions',
        api_app_id: c.appId ?? opts.appId,
        user: { id: c.user, team_id: c.teamId ?? opts.teamId },
        team: { id: c.teamId ?? opts.teamId, domain: 'fake' },
        channel: { id: channel, name: 'ops' },
        container: { type: 'message', channel_id: channel, message_ts: messages.at(-1)?.ts },
        actions: [{ action_id: 'fault_approval_x', block_id: 'b', type: 'button', value: c.value, action_ts: '1' }],
        response_url: `${base}/response`,
        trigger_id: 't',
      };
      newest().send(JSON.stringify({ envelope_id, type: 'interactive', payload, accepts_response_payload: false }));
      return envelope_id;
    },
    /** Resolves once `check()` holds, re-checked on every change inside the fake. */
    until(check: () => boolean): Promise<void> {
      return new Promise((resolve) => {
        const l = () => {
          if (!check()) return;
          listeners.delete(l);
          resolve();
        };
        listeners.add(l);
        l();
      });
    },
    async stop() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type SlackFake = Awaited<ReturnType<typeof startSlackFake>>;
