import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { terminalQuestion } from '../../src/core/approvals/terminal-question';
import { startLab } from '../../harness/ios-lab/server';
import type { AdaptiveCard } from '../../src/adapters/channels/webex/schemas';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

/**
 * Before an approval is requested the relay dry-runs the lines on the incident's
 * device (here the simulated lab over MCP, as a real device tool server is reached), refuses what the
 * device refuses, and shows what the lines would change beside them.
 */
type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
});
afterAll(async () => lab?.stop());

let relay: Relay | undefined;
let tools: Awaited<ReturnType<typeof connectMcp>> | undefined;
afterEach(async () => {
  await tools?.close();
  await relay?.close();
  relay = undefined;
  tools = undefined;
  lab.lab.reset();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const SHUT = 'router bgp 65001 > neighbor 10.0.0.2 shutdown';

async function setUp(withDevices = true) {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  const cards: AdaptiveCard[] = [];
  const room = { postMarkdown: async () => undefined, postCard: async (card: AdaptiveCard) => (cards.push(card), { id: `card-${cards.length}` }) };
  relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', ...(withDevices ? { DEVICE_MCP_URL: lab.mcpUrl } : {}) },
    room,
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  tools = await connectMcp(`${url}/mcp`, 'tok');
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
  return { id: res.json().incident_id as string, cards };
}

const ask = (incident_id: string, commands: string[]) => tools!.call('request_approval', { incident_id, summary: 'neighbor admin down: bring it back', device: 'R1', commands });
/** Every text a card shows, in order. */
const cardText = (card: AdaptiveCard) => JSON.stringify(card.body).match(/"text":"((?:[^"\\]|\\.)*)"/g)!.map((t) => JSON.parse(t.slice(7)) as string).map((t) => t.replace(/\u00a0/g, ' '));
const running = () => (lab.lab.exec('R1', 'show running-config') as { output: string }).output.replace(/^! Last configuration change.*$/m, '');

describe('a preview on every approval', () => {
  it('shows the exact lines an accepted change adds and removes, on the card and in the terminal question, without changing the device', async () => {
    const { id, cards } = await setUp();
    const before = running();
    const changes = lab.lab.configChanges();

    const result = await ask(id, REPAIR);
    expect(result.json).toMatchObject({ status: 'pending' });
    const request = relay!.incidents.get(id)!.approval_request!;
    // With the relay's rollback: the restore that puts the shutdown line back, computed from the configuration before.
    expect(request.preview).toEqual({
      device: 'R1',
      accepted: true,
      method: 'config_session',
      added: [],
      removed: [SHUT],
      problems: [],
      rollback: { method: 'restore', lines: ['router bgp 65001', ' neighbor 10.0.0.2 shutdown'] },
      // The configuration it was computed against: the change is applied only on that one.
      fingerprint: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'running-config' },
    });

    const texts = cardText(cards[0]!);
    const lineAt = texts.indexOf('router bgp 65001');
    expect(texts.slice(lineAt)).toEqual(expect.arrayContaining([expect.stringMatching(/^Would change/), `- ${SHUT}`]));
    expect(terminalQuestion(relay!.incidents.get(id)!)).toMatch(new RegExp(`Would change \\(dry run in a configuration session\\):\\n    - ${SHUT}`));

    // The dry run is a copy: the live device is as it was, and nothing counts as a change.
    expect(running()).toBe(before);
    expect(lab.lab.configChanges()).toBe(changes);
    expect(lab.lab.exec('R1', 'show ip bgp neighbors 10.0.0.2')).toMatchObject({ output: expect.stringMatching(/Administratively shut down/) });
  });

  it('never sends a change the dry run refuses for approval: the agent is told why, the timeline records it', async () => {
    const { id, cards } = await setUp();
    const result = await ask(id, ['router bgp 65001', 'neighbor 10.0.0.2 bogus-keyword 5']);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/refused these lines, so they were NOT sent for approval: .*bogus-keyword/);

    const incident = relay!.incidents.get(id)!;
    expect(incident.state).toBe('running');
    expect(incident.approval_request ?? null).toBeNull();
    expect(cards).toEqual([]);
    const refused = relay!.incidents.timeline(id).find((e) => e.type === 'approval.preview_refused');
    expect(refused?.message).toMatch(/bogus-keyword/);
    expect(relay!.incidents.timeline(id).map((e) => e.type)).not.toContain('approval.requested');

    // Corrected lines go through.
    expect((await ask(id, REPAIR)).json).toMatchObject({ status: 'pending' });
  });

  it('without device tools the request carries no preview, and the card says so', async () => {
    const { id, cards } = await setUp(false);
    expect((await ask(id, REPAIR)).json).toMatchObject({ status: 'pending' });
    expect(relay!.incidents.get(id)!.approval_request!.preview).toBeNull();
    expect(cardText(cards[0]!)).toContain('No preview: the relay has no device tools to dry-run the change.');
    expect(terminalQuestion(relay!.incidents.get(id)!)).toContain('No preview');
  });
});
