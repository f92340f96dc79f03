import { describe, expect, it } from 'vitest';
import { usePostgres } from '../helpers/postgres';
import { restartableStores } from '../helpers/restartable-stores';
import { waitUntil } from '../helpers/opencode';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

const pg = usePostgres();

const BACKENDS = restartableStores(pg);

describe.each(BACKENDS)('decisions survive a relay restart (%s)', (_name, backend, skip) => {
  it.skipIf(Boolean(skip))('a decision the session has not heard, and its room acknowledgement, are delivered after the restart', async () => {
    const open = await backend();
    const agent = createStubRuntime();
    const posted: string[] = [];
    // The room is down when the click arrives: the acknowledgement cannot be posted yet.
    let roomUp = false;
    const room = {
      postMarkdown: async (m: string) => {
        if (!roomUp) throw new Error('room unreachable');
        posted.push(m);
      },
      postCard: async () => ({ id: 'card-1' }),
    };

    const first = await relayForTest({ agent, store: await open(), room, env: { MSG_BOT_TOKEN: 't', MSG_ROOM_ID: 'room-1' } });
    const res = await first.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    const id = res.json().incident_id as string;
    const sessionId = res.json().session_id as string;
    await first.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    agent.setDown('unreachable');
    await first.webex!.onCardSubmission({
      actionId: 'a1', messageId: 'card-1', roomId: 'room-1', personId: 'p1', personEmail: 'alice@example.net', created: new Date().toISOString(),
      inputs: { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id: id, decision: 'APPROVED' },
    });
    expect(first.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', forwarded_at: null, acknowledged_at: null });
    await first.close();

    agent.setUp();
    roomUp = true;
    const second = await relayForTest({ agent, store: await open(), room, env: { MSG_BOT_TOKEN: 't', MSG_ROOM_ID: 'room-1' } });
    await waitUntil(() => agent.prompts.some((p) => p.sessionId === sessionId && /HUMAN OPERATOR RESPONSE: APPROVED/.test(p.text)), 'the decision forwarded');
    await waitUntil(() => posted.some((m) => m.includes(id) && /APPROVED by alice@example.net/.test(m)), 'the acknowledgement posted');
    await waitUntil(() => second.incidents.get(id)?.state === 'running', 'the run resumed');
    expect(second.incidents.get(id)?.approval).toMatchObject({ forwarded_at: expect.any(String), acknowledged_at: expect.any(String) });
    expect(agent.prompts.filter((p) => /HUMAN OPERATOR RESPONSE/.test(p.text))).toHaveLength(1);
    await second.close();
  });
});
