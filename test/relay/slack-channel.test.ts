import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { createSlackChannel, type SlackChannel } from '../../src/adapters/channels/slack/slack-channel';
import { startSlackFake, type SlackFake } from '../fakes/slack/slack-fake';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load';
import { newToken } from '../../src/core/operators/operators';
import { slackChannel } from '../../src/adapters/channels/slack/from-config';
import { tempDir } from '../helpers/temp-dir';

const IDS = { appToken: 'xapp-1-test', botToken: 'xoxb-test', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
let relay: Relay | undefined;
let fake: SlackFake | undefined;
let slack: SlackChannel | undefined;
afterEach(async () => {
  await slack?.stop();
  await relay?.close();
  await fake?.stop();
});

describe('Slack as an operator channel of the relay', () => {
  it('asks in Slack, a listed person decides through the one decide(), and the message shows the outcome', async () => {
    fake = await startSlackFake({ ...IDS, users: { U0ALICE: 'alice@example.net' } });
    slack = createSlackChannel({ ...IDS, apiUrl: fake.apiUrl, approver: (p) => p.email === 'alice@example.net', logger: silent });
    relay = await relayForTest({ agent: createStubRuntime(), channels: [slack] });
    await slack.start();
    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    const id = res.json().incident_id as string;
    const asked = await relay.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    expect(asked).toMatchObject({ status: 'pending', channels: ['slack'] });
    const request = relay.incidents.get(id)!.approval_request!;
    const message = fake.messages.find((m) => m.ts === request.channel_messages?.slack)!;
    const buttons = (message.blocks!.find((b) => b.type === 'actions') as { elements: { value: string }[] }).elements;

    fake.click({ user: 'U0ALICE', value: buttons[0]!.value });
    await fake.until(() => fake!.updates.length === 1);
    expect(relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'alice@example.net', channel: 'slack', request_id: request.request_id });
    // Recorded once every channel has shown it (after Slack answered chat.update).
    await new Promise<void>((resolve) => {
      const check = () => relay!.incidents.get(id)?.approval?.acknowledged_at && (off(), resolve());
      const off = relay!.bus.subscribeAll(check);
      check();
    });
    expect(JSON.stringify(fake.updates[0]!.blocks)).toMatch(/APPROVED by alice@example.net via slack/);
  });

  it('records a Slack decision under the operator\'s name from OPERATORS_FILE, not the e-mail Slack gives', async () => {
    // Slack knows Alice by a private address; OPERATORS_FILE lists her member id with her work e-mail.
    fake = await startSlackFake({ ...IDS, users: { U0ALICE: 'alice.private@mail.example' } });
    const operators = join(tempDir('fault-relay-slack-ops-'), 'operators.yaml');
    writeFileSync(operators, stringify({ operators: [{ name: 'Alice Moreau', email: 'alice@example.net', role: 'approver', slack_user_id: 'U0ALICE', token_sha256: newToken().sha256 }] }));
    const env = { OPERATORS_FILE: operators, SLACK_APP_TOKEN: IDS.appToken, SLACK_BOT_TOKEN: IDS.botToken, SLACK_CHANNEL_ID: IDS.channelId, SLACK_API_URL: fake.apiUrl };
    slack = slackChannel.fromConfig(loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', ...env }), { logger: silent })!;
    relay = await relayForTest({ agent: createStubRuntime(), channels: [slack], env: { OPERATORS_FILE: operators } });
    await slack.start();
    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    const id = res.json().incident_id as string;
    await relay.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    const request = relay.incidents.get(id)!.approval_request!;
    const message = fake.messages.find((m) => m.ts === request.channel_messages?.slack)!;
    const buttons = (message.blocks!.find((b) => b.type === 'actions') as { elements: { value: string }[] }).elements;

    fake.click({ user: 'U0ALICE', value: buttons[0]!.value });
    await fake.until(() => fake!.updates.length === 1);
    expect(relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'Alice Moreau', channel: 'slack', request_id: request.request_id });
    expect(relay.incidents.timeline(id).find((e) => e.type === 'approval.decided')?.message).toMatch(/Alice Moreau/);
    expect(JSON.stringify(relay.incidents.get(id))).not.toContain('alice.private@mail.example');
  });
});
