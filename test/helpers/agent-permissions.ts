import { request } from 'undici';
import type { AgentClient } from '../../src/adapters/agent/client';
import type { RuntimeEndpoint, RuntimeEvent } from '../../src/core/agent-runtime';

/** A rule as opencode's `GET /agent` lists it, after merging its defaults, opencode.json and the agent file. */
export interface Rule {
  permission: string;
  pattern: string;
  action: 'allow' | 'deny' | 'ask';
}
export interface AgentInfo {
  name: string;
  mode: string;
  native?: boolean;
  permission: Rule[];
  prompt?: string;
}

/** opencode's wildcard: `*` any run of characters (slashes too), `?` one character, whole string. */
export const wildcard = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's').test(value);
/** The last matching rule wins; no match means ask. */
export const decide = (agent: AgentInfo, permission: string, pattern = '*') =>
  agent.permission.findLast((r) => wildcard(r.permission, permission) && wildcard(r.pattern, pattern))?.action ?? 'ask';

/** GET on the runtime with its Basic credentials; the JSON body. */
export async function getJson<T>(endpoint: RuntimeEndpoint, route: string): Promise<T> {
  const res = await request(`${endpoint.url}${route}`, { headers: { authorization: `Basic ${Buffer.from(`${endpoint.username}:${endpoint.password}`).toString('base64')}` } });
  if (res.statusCode !== 200) throw new Error(`GET ${route}: HTTP ${res.statusCode}`);
  return (await res.body.json()) as T;
}

/** Follows the event stream until the session `sessionId()` names is idle (or errors). */
export function untilIdle(client: AgentClient, sessionId: () => string | undefined) {
  const ac = new AbortController();
  let onConnected!: () => void;
  const connected = new Promise<void>((r) => (onConnected = r));
  const done = new Promise<RuntimeEvent>((resolve) => {
    void client.followEvents(
      (e) => {
        if ((e.type === 'session.idle' || e.type === 'session.error') && e.properties.sessionID === sessionId()) {
          ac.abort();
          resolve(e);
        }
      },
      { signal: ac.signal, onStatus: (s) => s.connected && onConnected() },
    );
  });
  return { connected, done };
}
