import { describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/opencode';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { decideAs } from '../helpers/decide-as';

const room = { postMarkdown: async () => {}, postCard: async () => ({ id: 'card-1' }) };

/**
 * Only a headed run's own terminal tells the agent a decision by itself (the operator typed it in the
 * agent's session). A decision that says it came from a terminal, for any other incident, is still
 * the relay's to deliver: `npm run demo`'s "Approve? [y/N]" once said "terminal", and its agent waited
 * for an answer that never came.
 */
describe('a decision from a terminal on an incident that is not headed', () => {
  it('is forwarded to the run\'s agent like any other decision', async () => {
    const agent = createStubRuntime();
    const relay = await relayForTest({ agent, room, env: { MSG_BOT_TOKEN: 't', MSG_ROOM_ID: 'room-1' } });
    try {
      const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
      const id = res.json().incident_id as string;
      const sessionId = res.json().session_id as string;
      await relay.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });

      expect((await decideAs(relay, id, 'DENIED', 'jane', { channel: 'terminal' })).status).toBe('accepted');
      await waitUntil(() => agent.prompts.some((p) => p.sessionId === sessionId && /HUMAN OPERATOR RESPONSE: DENIED/.test(p.text)), 'the decision forwarded to the agent');
      expect(relay.incidents.get(id)?.approval).toMatchObject({ decision: 'DENIED', channel: 'terminal', forwarded_at: expect.any(String) });
    } finally {
      await relay.close();
    }
  });
});
