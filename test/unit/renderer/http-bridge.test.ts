import { describe, expect, it } from 'vitest';
import type { UiEvent } from '../../../renderer/bridge/contract';
import { createHttpBridge, READ_ONLY_MESSAGE } from '../../../renderer/bridge/http-bridge';

/** Just enough of EventSource to hand frames to the bridge. */
class FrameSource {
  static last: FrameSource | undefined;
  closed = false;
  private listeners = new Map<string, ((e: { data: string }) => void)[]>();
  constructor(readonly url: string) {
    FrameSource.last = this;
  }
  addEventListener(name: string, fn: (e: { data: string }) => void) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn]);
  }
  emit(name: string, data: unknown) {
    for (const fn of this.listeners.get(name) ?? []) fn({ data: typeof data === 'string' ? data : JSON.stringify(data) });
  }
  close() {
    this.closed = true;
  }
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function bridgeWith(answer: (url: string, init?: RequestInit) => Response, canDecide = false) {
  const calls: string[] = [];
  const problems: string[] = [];
  const bridge = createHttpBridge({
    baseUrl: 'http://127.0.0.1:8080',
    fetch: (async (url: string, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${url}`);
      return answer(url, init);
    }) as typeof fetch,
    EventSource: FrameSource as unknown as typeof EventSource,
    writeClipboard: async () => {},
    onStreamProblem: (m) => problems.push(m),
    canDecide,
  });
  return { bridge, calls, problems };
}

describe('HTTP bridge (the browser view)', () => {
  it('not signed in as an approver, cannot decide or change settings, and says why', async () => {
    const { bridge, calls } = bridgeWith(() => json(200, {}));
    expect(bridge.canDecide).toBe(false);
    await expect(bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'APPROVED')).rejects.toThrow(READ_ONLY_MESSAGE);
    await expect(bridge.saveSettings({ REMEDIATION_MODE: 'hybrid' })).rejects.toThrow(/cannot be changed from the browser/);
    expect(calls).toEqual([]);
  });

  it('returns a degraded /health/deep (503) as health, not as an error', async () => {
    const degraded = { status: 'degraded', checks: { agent_runtime: { ok: false, url: 'http://x', latency_ms: 1, error: 'down' }, device_mcp: { skipped: true }, messaging: { configured: false, connected: false } } };
    const { bridge } = bridgeWith(() => json(503, degraded));
    expect((await bridge.health()).status).toBe('degraded');
  });

  it('turns a 401 into a message that tells the browser user what to open', async () => {
    const { bridge } = bridgeWith(() => new Response('', { status: 401, statusText: 'Unauthorized' }));
    await expect(bridge.listIncidents()).rejects.toThrow('/ui?token=<WEBHOOK_SECRET>');
  });

  it('passes the relay\'s own error message through', async () => {
    const { bridge } = bridgeWith(() => json(400, { error: { code: 'invalid_request', message: 'device: the device hostname is required' } }));
    await expect(bridge.directPrompt({ alert_def_id: 'AD000002', device: '', mode: 'strict', vars: {} })).rejects.toThrow('device: the device hostname is required');
  });

  it('delivers stream frames as typed events and skips one that does not fit, without stopping', () => {
    const { bridge, problems } = bridgeWith(() => json(200, {}));
    const seen: UiEvent[] = [];
    const off = bridge.subscribe((e) => seen.push(e));
    const source = FrameSource.last as FrameSource;
    expect(source.url).toBe('http://127.0.0.1:8080/events');
    source.emit('incident.timeline', { incident_id: 'INC-1', entry: { at: '2026-11-21T10:00:00.000Z', type: 'notify.final', message: 'done' } });
    source.emit('incident.timeline', { incident_id: 'INC-1' });
    source.emit('snapshot', 'not json');
    source.emit('incident.timeline', { incident_id: 'INC-1', entry: { at: '2026-11-21T10:00:01.000Z', type: 'agent.text', message: 'again' } });
    expect(seen.map((e) => e.type === 'incident.timeline' && e.entry.message)).toEqual(['done', 'again']);
    expect(problems).toHaveLength(2);
    off();
    expect(source.closed).toBe(true);
  });

  it('signed in as an approver, decides through the relay and reports its answer as the tray does', async () => {
    const bodies: unknown[] = [];
    const answers = [
      json(200, { status: 'accepted' }),
      json(409, { error: { code: 'already_decided', message: 'Already APPROVED by Ana Ruiz' }, decided: { decision: 'APPROVED', by: 'Ana Ruiz', channel: 'slack', at: '2026-11-28T10:00:00.000Z' } }),
      json(409, { error: { code: 'stale_request', message: 'old' }, request_id: 'REQ-AAAA-BBBB', pending_request_id: 'REQ-CCCC-DDDD' }),
      json(403, { error: { code: 'not_an_approver', message: 'vic@example.net is a viewer: only approvers decide.' } }),
    ];
    const { bridge, calls } = bridgeWith((_url, init) => (bodies.push(JSON.parse(String(init?.body))), answers.shift()!), true);
    expect(bridge.canDecide).toBe(true);
    expect(await bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'APPROVED', 'looks right')).toEqual({ status: 'accepted' });
    expect(await bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'DENIED')).toEqual({ status: 'already_decided', decision: 'APPROVED', by: 'Ana Ruiz', channel: 'slack', at: '2026-11-28T10:00:00.000Z' });
    expect(await bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'DENIED')).toEqual({ status: 'stale_request', request_id: 'REQ-AAAA-BBBB', pending_request_id: 'REQ-CCCC-DDDD' });
    expect(await bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'DENIED')).toEqual({ status: 'refused', message: 'vic@example.net is a viewer: only approvers decide.' });
    expect(calls[0]).toBe('POST http://127.0.0.1:8080/incidents/INC-1/decision');
    expect(bodies[0]).toEqual({ request_id: 'REQ-AAAA-BBBB', decision: 'APPROVED', comment: 'looks right' });
  });
});
