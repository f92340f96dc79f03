import { describe, expect, it } from 'vitest';
import { createHttpBridge } from '../../../renderer/bridge/http-bridge';
import { heldBehind } from '../../../renderer/components/held-panel';
import { trayHealthOf } from '../../../electron/health-monitor';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function bridgeAnswering(answer: Response) {
  const calls: string[] = [];
  const bridge = createHttpBridge({
    baseUrl: 'http://127.0.0.1:8080',
    fetch: (async (url: string, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${url}`);
      return answer;
    }) as typeof fetch,
    EventSource: class {} as unknown as typeof EventSource,
    writeClipboard: async () => {},
    onStreamProblem: () => {},
    canDecide: true,
  });
  return { bridge, calls };
}

describe('quarantine and held requests in the browser view', () => {
  it('Clear posts to the same route an approver token uses, and says the relay\'s reason when refused', async () => {
    const ok = bridgeAnswering(json(200, { status: 'cleared', device: 'R1', by: 'ana@example.net' }));
    expect(await ok.bridge.clearDevice('R1')).toEqual({ status: 'cleared', device: 'R1' });
    expect(ok.calls).toEqual(['POST http://127.0.0.1:8080/devices/R1/clear']);
    const viewer = bridgeAnswering(json(403, { error: { code: 'not_an_approver', message: 'vic@example.net is a viewer: only approvers clear a quarantined device.' } }));
    expect(await viewer.bridge.clearDevice('R1')).toEqual({ status: 'refused', message: expect.stringMatching(/only approvers clear a quarantined device/) });
  });

  it('a held request shows what it waits for until it is asked', () => {
    const held = { at: '2026-11-28T10:00:00.000Z', type: 'approval.held', message: 'Held: …', device: 'R1', waiting_for_incident: 'INC-1', waiting_for_change: 'chg-1' };
    expect(heldBehind([held])).toEqual({ kind: 'change', device: 'R1', incident: 'INC-1', change: 'chg-1', message: 'Held: …' });
    // A plan held for a quarantined device: which device, since when and why, until a person clears it.
    const plan = { at: held.at, type: 'approval.held', message: 'Held: the plan…', device: 'R2', quarantined_since: '2026-11-28T09:00:00.000Z', quarantine_reason: 'change chg-0 of INC-0: ROLLBACK FAILED' };
    expect(heldBehind([plan])).toEqual({ kind: 'quarantine', device: 'R2', since: '2026-11-28T09:00:00.000Z', reason: 'change chg-0 of INC-0: ROLLBACK FAILED', message: 'Held: the plan…' });
    expect(heldBehind([held, { at: held.at, type: 'approval.unheld', message: 'asked now' }])).toBeUndefined();
    expect(heldBehind([{ at: held.at, type: 'approval.requested', message: 'asked' }])).toBeUndefined();
  });
});

describe('the tray', () => {
  it('names a quarantined device as its problem until it is cleared', () => {
    const checks = { agent_runtime: { ok: true, url: 'http://x', latency_ms: 1 }, device_mcp: { skipped: true as const }, messaging: { configured: false, connected: false } };
    const entry = { device: 'R1', reason: 'change chg-1 of INC-1: ROLLBACK FAILED (post-check failed): check the device', since: '2026-11-28T10:00:00.000Z', incident_id: 'INC-1', change_id: 'chg-1' };
    expect(trayHealthOf({ status: 'degraded', checks: { ...checks, quarantine: { ok: false, devices: [entry] } } })).toEqual({
      ok: false,
      problem: 'R1 is quarantined since 2026-11-28T10:00:00.000Z: change chg-1 of INC-1: ROLLBACK FAILED (post-check failed): check the device',
    });
    expect(trayHealthOf({ status: 'ok', checks: { ...checks, quarantine: { ok: true, devices: [] } } })).toEqual({ ok: true });
  });
});
