import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createHttpBridge } from '../../../renderer/bridge/http-bridge';
import type { Bridge } from '../../../renderer/bridge/contract';
import { IncidentActions } from '../../../renderer/components/incident-actions';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function bridgeAnswering(answer: Response, canDecide = true) {
  const calls: { url: string; body: unknown }[] = [];
  const bridge = createHttpBridge({
    baseUrl: 'http://127.0.0.1:8080',
    fetch: (async (url: string, init?: RequestInit) => {
      calls.push({ url: `${init?.method ?? 'GET'} ${url}`, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      return answer;
    }) as typeof fetch,
    EventSource: class {} as unknown as typeof EventSource,
    writeClipboard: async () => {},
    onStreamProblem: () => {},
    canDecide,
  });
  return { bridge, calls };
}

describe('acting on an incident in the browser view and the tray', () => {
  it('each action posts to the API route of its kind and is answered in the relay\'s words', async () => {
    const assign = bridgeAnswering(json(200, { status: 'assigned', incident_id: 'INC-1', by: 'Ana Ruiz', to: 'Bo Li', to_email: 'bo@example.net', at: 'x' }));
    expect(await assign.bridge.incidentAction('INC-1', { kind: 'assign', to: 'bo@example.net' })).toEqual({ status: 'done', message: 'Assigned to Bo Li' });
    expect(assign.calls).toEqual([{ url: 'POST http://127.0.0.1:8080/incidents/INC-1/assign', body: { to: 'bo@example.net', channel: 'ui' } }]);
    const retry = bridgeAnswering(json(202, { status: 'retried', incident_id: 'INC-1', by: 'Ana Ruiz', new_incident_id: 'INC-2' }));
    expect(await retry.bridge.incidentAction('INC-1', { kind: 'retry' })).toEqual({ status: 'done', message: 'Retried as INC-2' });
    const refused = bridgeAnswering(json(409, { error: { code: 'incident_active', message: 'INC-1 is running: a run still going cannot be closed.' } }));
    expect(await refused.bridge.incidentAction('INC-1', { kind: 'close', reason: 'done' })).toEqual({ status: 'refused', message: expect.stringMatching(/cannot be closed/) });
  });

  it('shows who has it and how it ended, offers close and retry only where they apply, and nothing to a viewer', () => {
    const timeline = [
      { at: '2026-11-29T03:00:00.000Z', type: 'incident.acknowledged', message: '', by: 'Ana Ruiz', channel: 'ui' },
      { at: '2026-11-29T03:01:00.000Z', type: 'incident.assigned', message: '', to: 'Bo Li', to_email: 'bo@example.net', by: 'Ana Ruiz' },
    ];
    const render = (state: 'running' | 'failed', bridge: Bridge) => renderToStaticMarkup(<IncidentActions bridge={bridge} incident={{ incident_id: 'INC-1', state }} timeline={timeline} />);
    const failed = render('failed', bridgeAnswering(json(200, {})).bridge);
    expect(failed).toMatch(/Assigned to <strong>Bo Li<\/strong> by Ana Ruiz/);
    expect(failed).toMatch(/>Close</);
    expect(failed).toMatch(/>Retry</);
    expect(failed).not.toMatch(/>Acknowledge</);
    const running = render('running', bridgeAnswering(json(200, {})).bridge);
    expect(running).not.toMatch(/>Close<|>Retry</);
    const viewer = render('failed', bridgeAnswering(json(200, {}), false).bridge);
    expect(viewer).not.toMatch(/<button/);
    expect(viewer).toMatch(/Assigned to/);
  });
});
