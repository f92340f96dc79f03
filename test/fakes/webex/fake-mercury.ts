import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FakeConnection, FakeState } from './fake-state';

const REGISTRATION_PATH = /^\/mercury\/api\/v1\/apps\/wx2\/registrations\/([^/]+)\/messages$/;

/**
 * Mercury as a bot meets it: the upgrade needs a known device (404 otherwise), the first frame
 * must authorize (4401 otherwise), then buffer_state, pong for ping, and acks recorded.
 * A newer ready socket of the same device replaces the older one (4000), or retires it
 * with 4001 when the older one was told to move by `shutdown`.
 */
export function createMercuryServer(state: FakeState) {
  const wss = new WebSocketServer({ noServer: true });
  let nextId = 1;

  const envelope = (conn: FakeConnection, data: Record<string, unknown>) => ({
    id: randomUUID(),
    data,
    timestamp: Date.now(),
    trackingId: `FAKE_MERCURY_${randomUUID()}`,
    sequenceNumber: conn.seq++,
    filterMessage: false,
    wsWriteTimestamp: Date.now(),
  });

  const onAuthorized = (conn: FakeConnection) => {
    conn.authorized = true;
    conn.ws.send(JSON.stringify(envelope(conn, { eventType: 'mercury.buffer_state', buffer: { conversation: 'UNBUFFERED' } })));
    for (const other of state.readyConnections()) {
      if (other === conn || other.deviceId !== conn.deviceId) continue;
      if (other.draining) other.ws.close(4001, 'replaced');
      else other.ws.close(4000, 'replaced');
    }
    state.changed();
  };

  const accept = (ws: WebSocket, deviceId: string, query: URLSearchParams) => {
    const conn: FakeConnection = { id: nextId++, deviceId, query, ws, authorized: false, draining: false, seq: 1 };
    state.connections.push(conn);
    state.changed();

    ws.on('message', (raw) => {
      let frame: Record<string, unknown>;
      try {
        frame = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        ws.close(4400, 'Bad request');
        return;
      }
      if (!conn.authorized) {
        state.authFrames.push(frame);
        const data = frame['data'] as { token?: unknown } | undefined;
        if (frame['type'] === 'authorization' && typeof data?.token === 'string' && state.tokenOk(data.token)) onAuthorized(conn);
        else ws.close(4401, 'Authorization failed');
        state.changed();
        return;
      }
      if (frame['type'] === 'ping') {
        state.pings++;
        if (state.answerPings) ws.send(JSON.stringify({ id: frame['id'], type: 'pong', sequenceNumber: conn.seq++ }));
      } else if (frame['type'] === 'ack' && typeof frame['messageId'] === 'string') {
        state.acks.push({ messageId: frame['messageId'], connectionId: conn.id });
      }
      state.changed();
    });
    ws.on('close', (code, reason) => {
      conn.closed = { code, reason: reason.toString() };
      state.changed();
    });
  };

  return {
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
      state.socketAttempts++;
      state.changed();
      const url = new URL(req.url ?? '/', 'http://fake');
      const m = REGISTRATION_PATH.exec(url.pathname);
      const deviceId = m?.[1];
      if (!deviceId || !state.devices.has(deviceId)) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, deviceId, url.searchParams));
    },

    /** Sends an event envelope to every ready socket not being retired; returns the envelope ids. */
    emit(data: Record<string, unknown>): string[] {
      const targets = state.readyConnections().filter((c) => !c.draining);
      if (targets.length === 0) throw new Error('webex fake: no websocket is connected to receive the event');
      return targets.map((conn) => {
        const env = envelope(conn, data);
        conn.ws.send(JSON.stringify(env));
        return env.id;
      });
    },

    close() {
      for (const c of state.connections) if (!c.closed) c.ws.terminate();
      wss.close();
    },
  };
}
