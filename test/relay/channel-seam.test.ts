import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNEL_FACTORIES, channelsFromConfig, type ChannelFactory } from '../../src/adapters/channels';
import { approvalAskSchema, type ApprovalAsk, type ChannelHost, type OperatorChannel } from '../../src/core/approvals/operator-channel';
import type { Approval, Incident } from '../../src/core/incidents/model';
import { waitUntil } from '../helpers/opencode';
import { ad000002, relayForTest, silent, testConfig } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

/**
 * A third channel, defined only here: it needs no setting, keeps what it was asked, and hands a
 * person's decision back through the host the relay attached, as Webex and Slack do.
 */
function pigeonChannel() {
  const asked: ApprovalAsk[] = [];
  const acknowledged: { incident: Incident; approval: Approval }[] = [];
  const told: string[] = [];
  let host: ChannelHost | undefined;
  const channel: OperatorChannel = {
    name: 'pigeon',
    async ask(request) {
      asked.push(request);
      return { message_id: `pigeon-${asked.length}` };
    },
    async tell(markdown) {
      told.push(markdown);
    },
    async acknowledge(incident, approval) {
      acknowledged.push({ incident, approval });
    },
    attach(h) {
      host = h;
    },
  };
  const factory: ChannelFactory = { name: 'pigeon', fromConfig: () => channel };
  return { factory, asked, acknowledged, told, host: () => host };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('a channel is one folder and one line', () => {
  it('a channel the relay has never heard of is asked with the core\'s ask, and its decision is the one the relay applies', async () => {
    const pigeon = pigeonChannel();
    const config = testConfig();
    // Registered exactly as the shipped channels are: a factory in the list; Webex and Slack have no settings here, so only it is built.
    const channels = channelsFromConfig(config, { logger: silent }, [...CHANNEL_FACTORIES, pigeon.factory]);
    expect(channels.map((c) => c.name)).toEqual(['pigeon']);
    const agent = createStubRuntime();
    const relay = await relayForTest({ agent, channels });
    close = () => relay.close();

    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    const id = res.json().incident_id as string;
    const pending = await relay.approvals.request({ incident_id: id, summary: 'bring the neighbor back', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    expect(pending).toMatchObject({ status: 'pending', channels: ['pigeon'] });

    // What it was shown is the core's ask, whole; its message id is kept under its name.
    expect(pigeon.asked).toHaveLength(1);
    const ask = approvalAskSchema.parse(pigeon.asked[0]);
    expect(ask).toMatchObject({ incident_id: id, device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    expect(relay.incidents.get(id)?.approval_request?.channel_messages).toEqual({ pigeon: 'pigeon-1' });

    // A person decides on it: through the host, with the request it showed.
    const result = await pigeon.host()!.decide({ channel: 'pigeon', incident_id: id, request_id: ask.request_id, decision: 'APPROVED', person: { id: 'carol@example.net' } });
    expect(result.status).toBe('accepted');
    expect(relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'carol@example.net', channel: 'pigeon', commands: ask.commands });
    await waitUntil(() => agent.prompts.some((p) => /HUMAN OPERATOR RESPONSE: APPROVED/.test(p.text)), 'the agent told');
    await waitUntil(() => pigeon.acknowledged.length === 1, 'the outcome shown on the channel');

    // A second click on the same request changes nothing.
    const again = await pigeon.host()!.decide({ channel: 'pigeon', incident_id: id, request_id: ask.request_id, decision: 'DENIED', person: { id: 'dave@example.net' } });
    expect(again.status).toBe('already_decided');
  });

  it('the relay\'s composition names no channel product: channels come from their own list', () => {
    const root = join(import.meta.dirname, '../..');
    for (const file of ['src/relay/create-relay.ts', 'src/relay/relay-contract.ts']) {
      expect(readFileSync(join(root, file), 'utf8'), file).not.toMatch(/webex|slack|onCardSubmission/i);
    }
    expect(CHANNEL_FACTORIES.map((f) => f.name)).toEqual(['webex', 'slack']);
  });
});
