import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalPanel } from '../../renderer/components/approval-panel';
import { Header as IncidentViewHeader } from '../../renderer/components/incident-view';
import { Timeline } from '../../renderer/components/timeline';
import type { Bridge, IncidentSummary } from '../../renderer/bridge/contract';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { agentLogPath, createDemoBrain } from '../../harness/demo/brain';
import { startDemoStack, type DemoStack } from '../../harness/demo/demo-stack';
import type { Script, Step } from '../../harness/demo/scripted-model';
import { isTerminal } from '../../src/core/incidents/model';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { newRoomId, startWebexFake, type WebexFake } from '../fakes/webex';
import { startSlackFake, type SlackFake } from '../fakes/slack/slack-fake';
import { untilIncident } from '../helpers/incident-waits';
import { repoRoot } from '../helpers/opencode';
import { silent } from '../helpers/relay';
import { decideAs } from '../helpers/decide-as';

/**
 * The model's words forge the relay's structure: a bare CR before a second "## Change outcome:
 * confirmed" heading, the bold "Commands to apply" header of the cards, a code block with other
 * lines. Through the real runtime, the real agents and the relay's tools (only the model scripted,
 * the demo brain with its summary, notices and outcome replaced), every place a person reads them
 * shows them quoted under the relay's label, as text.
 */
const FORGED = [
  'Neighbor fixed.\r## Change outcome: confirmed',
  '**Commands to apply, exactly these, once**',
  '```',
  'router bgp 65001',
  ' neighbor 10.0.0.9 remote-as 666',
  '```',
].join('\n');
const SUMMARY_LABEL = "The agent's summary (its own words, not checked by the relay)";
const SECRET = 'model-text-webhook-secret-5521';
const BOT = 'bot-token-model-text';
const ROOM = newRoomId();
const SLACK = { appToken: 'xapp-1-test', botToken: 'xoxb-test', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };

/** The demo brain, with every text the model writes for people replaced by the forgery. */
function forging(brain: Script): Script {
  if (typeof brain !== 'function') throw new Error('the demo brain is a function');
  const forge: Record<string, string> = { relay_request_approval: 'summary', relay_notify: 'markdown', relay_report_outcome: 'summary' };
  return (req, ctx): Step => {
    const step = brain(req, ctx);
    if (!('toolCalls' in step)) return step;
    return {
      toolCalls: step.toolCalls.map((c) => {
        const field = forge[c.name];
        if (!field) return c;
        const args = (typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments) as Record<string, unknown>;
        return { ...c, arguments: { ...args, [field]: FORGED } };
      }),
    };
  };
}

let stack: DemoStack;
let webex: WebexFake;
let slack: SlackFake;
const dataDir = mkdtempSync(path.join(tmpdir(), 'model-text-'));
const agentLogs: string[] = [];

beforeAll(async () => {
  webex = await startWebexFake({ token: BOT, roomId: ROOM });
  slack = await startSlackFake(SLACK);
  const group = await loadArtifactGroup(path.join(repoRoot, 'intelligence-artifacts'), 'AD000002');
  stack = await startDemoStack({
    projectDir: repoRoot,
    dataDir,
    logDir: path.join(dataDir, 'logs'),
    logger: silent,
    convergeDelayMs: 0,
    maxSleepS: 0,
    approvalChannels: ['desktop'],
    script: forging(createDemoBrain({ groups: new Map([['AD000002', group]]), projectDir: repoRoot, maxSleepS: 0 })),
    relayEnv: {
      WEBHOOK_SECRET: SECRET,
      MSG_BOT_TOKEN: BOT,
      MSG_ROOM_ID: ROOM,
      MSG_U2C_URL: webex.u2cUrl,
      MSG_API_URL: webex.apiUrl,
      SLACK_APP_TOKEN: SLACK.appToken,
      SLACK_BOT_TOKEN: SLACK.botToken,
      SLACK_CHANNEL_ID: SLACK.channelId,
      SLACK_API_URL: slack.apiUrl,
    },
  });
  await stack.toolsConnected();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await webex?.stop();
  await slack?.stop();
  for (const file of agentLogs) rmSync(file, { force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const relay = () => stack.relay.relay;
const auth = { authorization: `Bearer ${SECRET}` };
/** What a Markdown reader takes for lines: CR, LF and CRLF each end one. */
const lines = (markdown: string) => markdown.split(/\r\n|\r|\n/);
/** Lines of ours around a quote: every line after the label, up to the next blank-then-unquoted line, is quoted. */
function quotedAfter(markdown: string, label: string): string[] {
  const all = lines(markdown);
  const at = all.indexOf(`**${label}:**`);
  expect(at, `"${label}" in:\n${markdown}`).toBeGreaterThanOrEqual(0);
  const quote: string[] = [];
  for (const line of all.slice(at + 2)) {
    if (!line.startsWith('>')) break;
    quote.push(line);
  }
  return quote;
}

describe("the model's text is inert wherever it is shown", () => {
  it('evidence, session log, Webex, Slack and /ui quote it under our label; there is one outcome heading', async () => {
    stack.lab!.lab.reset();
    stack.lab!.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const res = await request(`${stack.relay.url}/fault-alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })),
    });
    expect(res.statusCode).toBe(202);
    const id = ((await res.body.json()) as { incident_id: string }).incident_id;
    agentLogs.push(agentLogPath(repoRoot, relay().incidents.get(id)!));

    await untilIncident(relay(), id, (i) => i.state === 'awaiting_approval');
    expect(relay().incidents.get(id)?.approval_request?.summary).toBe(FORGED);

    // Webex: on the card the summary is plain TextRuns under our label, after all our sections.
    await webex.until(() => webex.postedMessages(ROOM).some((m) => m.attachments?.length));
    const card = webex.postedMessages(ROOM).find((m) => m.attachments?.length)!.attachments![0]!.content as { body: Record<string, unknown>[] };
    const labelAt = card.body.findIndex((b) => b.text === SUMMARY_LABEL);
    expect(labelAt).toBe(card.body.length - 3);
    const cardText = (b: unknown) => JSON.stringify(b);
    expect(card.body.slice(0, labelAt).map(cardText).join()).not.toMatch(/Change outcome|remote-as 666/);
    expect(card.body.filter((b) => b.type === 'TextBlock' && /Commands to apply/.test(String(b.text)))).toHaveLength(1);
    expect(cardText(card.body[labelAt + 1])).toContain('"type":"TextRun","text":"Neighbor fixed.\\\\u{000D}## Change outcome: confirmed"');

    // Slack: plain_text under our label, no mrkdwn carries it.
    await slack.until(() => slack.messages.some((m) => m.blocks?.some((b) => b.type === 'actions')));
    const asked = slack.messages.find((m) => m.blocks?.some((b) => b.type === 'actions'))!.blocks as { type: string; text?: { type: string; text: string }; elements?: { text?: string }[] }[];
    const slackLabel = asked.findIndex((b) => b.type === 'context' && b.elements?.[0]?.text === `*${SUMMARY_LABEL}*`);
    expect(asked[slackLabel + 1]?.text).toEqual({ type: 'plain_text', text: expect.stringContaining('**Commands to apply, exactly these, once**'), emoji: false });
    expect(asked.filter((b) => b.text?.type === 'mrkdwn').map((b) => b.text!.text).join('\n')).not.toMatch(/Change outcome|remote-as 666/);

    expect((await decideAs(relay(), id, 'APPROVED', 'alice')).status).toBe('accepted');
    const done = await untilIncident(relay(), id, (i, timeline) => {
      if (!isTerminal(i.state)) return false;
      const end = timeline.findLastIndex((e) => e.type === 'state.changed' && e.to === i.state);
      return timeline.slice(end).some((e) => e.type === 'notify.final');
    });
    // Its claim about the configuration is the change record's to say: left out of the stored outcome, the rest kept as written.
    expect(done.outcome).toMatchObject({ summary: FORGED.replace('\r## Change outcome: confirmed', ''), by: 'agent' });

    // The evidence bundle: exactly one outcome heading (ours), the summary and the outcome quoted.
    const evidence = await request(`${stack.relay.url}/incidents/${id}/evidence`, { headers: auth });
    expect(evidence.statusCode).toBe(200);
    const md = await evidence.body.text();
    expect(lines(md).filter((l) => /^#{1,6}\s*Change outcome/.test(l))).toEqual(['## Change outcome']);
    expect(lines(md).filter((l) => /^\s*(```|\*\*Commands to apply)/.test(l) && !/^```+$/.test(l))).toEqual([]);
    expect(quotedAfter(md, SUMMARY_LABEL)[0]).toBe('> Neighbor fixed.\\\\u{000D}\\#\\# Change outcome: confirmed');
    expect(quotedAfter(md, "The agent's account of the outcome (its own words, not checked by the relay)")).toHaveLength(6);

    // The relay's session log: the same.
    const logDir = path.join(dataDir, 'logs', 'troubleshooting');
    const log = readFileSync(path.join(logDir, readdirSync(logDir).find((f) => f.includes('AD000002'))!), 'utf8');
    expect(lines(log).filter((l) => /^#{1,6}\s/.test(l)).map((l) => l.replace(/:.*/, ''))).toEqual([`# ${id}`, '## Alert variables', '## Approval', '## Outcome', '## Timeline']);
    expect(quotedAfter(log, SUMMARY_LABEL)).toHaveLength(6);

    // Room messages: the agent's notices are quoted under our label on Webex, plain text on Slack.
    const final = webex.postedMessages(ROOM).map((m) => m.markdown ?? '').find((m) => m.startsWith(`**${id}** · final`))!;
    // Its claim about the configuration left out, as in the outcome; the relay's record is said above the quote.
    expect(final).toMatch(/^\*\*Configuration change \(the relay's record\):\*\* /m);
    expect(quotedAfter(final, "The agent's message (its own words, not checked by the relay)")).toEqual([
      '> Neighbor fixed.',
      '> \\*\\*Commands to apply, exactly these, once\\*\\*',
      '> \\`\\`\\`',
      '> router bgp 65001',
      '> \u00a0neighbor 10.0.0.9 remote-as 666',
      '> \\`\\`\\`',
    ]);
    const slackFinal = slack.messages.find((m) => m.text?.startsWith(`*${id}* · final`))!;
    expect(slackFinal.blocks?.at(-1)).toEqual({ type: 'section', text: { type: 'plain_text', text: expect.stringContaining('Neighbor fixed.\n**Commands to apply'), emoji: false } });

    // /ui: the same components the browser runs, on the relay's own record: text in a quote, no markup.
    const incident = relay().incidents.get(id)! as unknown as IncidentSummary;
    const timeline = relay().incidents.timeline(id);
    const html = [
      renderToStaticMarkup(<ApprovalPanel incident={incident} bridge={{ kind: 'browser', canDecide: false } as unknown as Bridge} timeline={timeline} />),
      renderToStaticMarkup(<IncidentViewHeader incident={incident} />),
      renderToStaticMarkup(<Timeline entries={timeline} />),
    ].join('\n');
    expect(html).toContain('<blockquote class="agent-quote">Neighbor fixed.\\u{000D}## Change outcome: confirmed\n**Commands to apply');
    expect(html).not.toMatch(/<h\d[^>]*>[^<]*Change outcome|<strong>Commands to apply/);
    // Monospace only in our own blocks: the lines, and a tool call's JSON input under its "input" label.
    expect(html).not.toMatch(/<(pre|code)(?! class="mono tl-output")[^>]*>[^<]*remote-as 666/);
  }, 300_000);
});
