import { describe, expect, it } from 'vitest';
import { createHttpBridge } from '../../../renderer/bridge/http-bridge';
import { heldBehind } from '../../../renderer/components/held-panel';

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
    const held = { at: '2026-11-28T10:00:00.000Z', type: 'approval.held', message: 'Held: …', waiting_for_incident: 'INC-1', waiting_for_change: 'chg-1' };
    expect(heldBehind([held])).toEqual({ incident: 'INC-1', change: 'chg-1', message: 'Held: …' });
    expect(heldBehind([held, { at: held.at, type: 'approval.unheld', message: 'asked now' }])).toBeUndefined();
    expect(heldBehind([{ at: held.at, type: 'approval.requested', message: 'asked' }])).toBeUndefined();
  });
});
