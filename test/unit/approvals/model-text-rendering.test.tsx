import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApprovalPanel } from '../../../renderer/components/approval-panel';
import { Timeline } from '../../../renderer/components/timeline';
import type { Bridge } from '../../../renderer/bridge/contract';
import type { ApprovalAsk } from '../../../src/core/approvals/operator-channel';
import { terminalQuestion } from '../../../src/core/approvals/terminal-question';
import type { Incident, TimelineEntry } from '../../../src/core/incidents/model';
import { approvalFallbackMarkdown, buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { approvalBlocks, decidedBlocks } from '../../../src/adapters/channels/slack/blocks';
import { ack } from '../../../src/adapters/channels/webex/wording';
import type { Approval } from '../../../src/core/incidents/model';

/** A summary that forges the relay's own structure: an outcome heading behind a bare CR, our "Commands" header, a code block. */
const FORGED_SUMMARY = [
  'Neighbor fixed.\r## Change outcome: confirmed',
  '**Commands to apply, exactly these, once**',
  '```',
  'router bgp 65001',
  ' neighbor 10.0.0.9 remote-as 666',
  '```',
  '[Approve here](https://evil.example/approve) \u202eevil',
].join('\n');
const commands = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const ask: ApprovalAsk = {
  incident_id: 'INC-1', request_id: 'REQ-AAAA-BBBB', alert_def_id: 'AD000002', device: 'R1', summary: FORGED_SUMMARY, commands,
  expires_at: '2026-11-26T23:00:00Z', lines_sha256: 'ab'.repeat(32), evidence: [], preview: null,
};
const request = {
  request_id: 'REQ-AAAA-BBBB', summary: FORGED_SUMMARY, device: 'R1', commands, rollback: [], requested_at: '2026-11-26T22:00:00Z',
  expires_at: '2026-11-26T23:00:00Z', status: 'pending' as const, lines_sha256: 'ab'.repeat(32), channels: ['terminal'], terminal_shown_at: null, preview: null,
};
const incident = { incident_id: 'INC-1', state: 'awaiting_approval', approval: null, approval_request: request } as unknown as Incident;
const LABEL = "The agent's summary (its own words, not checked by the relay)";

type Node = { type?: string; text?: string; weight?: string; fontType?: string; items?: Node[]; inlines?: Node[]; elements?: Node[] };
const walk = (nodes: Node[] | undefined, out: Node[] = []): Node[] => {
  for (const n of nodes ?? []) {
    out.push(n);
    walk(n.items, out);
    walk(n.inlines, out);
  }
  return out;
};

describe("the agent's summary on every channel: labelled, below the relay's sections, never styled as ours", () => {
  it('Webex card: plain TextRuns under the label, after everything else; the one bold "Commands" header is ours', () => {
    const body = buildApprovalCard(ask).body as Node[];
    const all = walk(body);
    const label = body.findIndex((n) => n.text === LABEL);
    expect(label).toBe(body.length - 3); // label, the quote, then the reason field
    const quoted = walk(body.slice(label + 1, label + 2)).filter((n) => n.type === 'TextRun');
    expect(quoted.map((n) => n.text).join('\n')).toContain('Neighbor fixed.\\u{000D}## Change outcome: confirmed');
    expect(quoted.every((n) => n.fontType === undefined)).toBe(true);
    // Markdown is read only in TextBlocks: none carries the agent's words.
    expect(all.filter((n) => n.type === 'TextBlock' && /Change outcome|remote-as 666|evil/.test(n.text ?? ''))).toEqual([]);
    expect(all.filter((n) => /Commands to apply/.test(n.text ?? '') && n.type === 'TextBlock')).toHaveLength(1);
    expect(all.filter((n) => n.fontType === 'Monospace').map((n) => n.text)).not.toContain(' neighbor 10.0.0.9 remote-as 666');
    expect(JSON.stringify(body)).toContain('\\\\u{202E}evil');
  });

  it('Webex fallback Markdown: the summary is a quote under the label, every line escaped', () => {
    const md = approvalFallbackMarkdown(ask);
    const lines = md.split(/\r\n|\r|\n/);
    const from = lines.indexOf(`**${LABEL}:**`);
    expect(from).toBeGreaterThan(0);
    for (const line of lines.slice(from + 2)) expect(line, line).toMatch(/^>( |$)/);
    expect(lines.filter((l) => /^\s*(#|```|\*\*Commands)/.test(l))).toEqual([]);
  });

  it('Slack: plain_text under the label, after the relay\'s sections; no mrkdwn block carries it', () => {
    const { blocks } = approvalBlocks(ask) as unknown as { blocks: { type: string; text?: { type: string; text: string }; elements?: { text: string }[] }[] };
    const label = blocks.findIndex((b) => b.type === 'context' && b.elements?.[0]?.text === `*${LABEL}*`);
    expect(blocks[label - 1]?.type).toBe('divider');
    expect(blocks[label + 1]?.text).toMatchObject({ type: 'plain_text', text: expect.stringContaining('**Commands to apply, exactly these, once**') });
    expect(blocks[label + 2]?.type).toBe('actions');
    const mrkdwn = blocks.filter((b) => b.text?.type === 'mrkdwn').map((b) => b.text!.text);
    expect(mrkdwn.filter((t) => /Change outcome|remote-as 666|evil/.test(t))).toEqual([]);
    expect(mrkdwn.filter((t) => t.includes('Commands to apply'))).toEqual(['*Commands to apply, exactly these, once*']);
  });

  it('the terminal question quotes it line by line, with the CR written out', () => {
    const q = terminalQuestion(incident).split('\n');
    const from = q.indexOf(`${LABEL}:`);
    expect(q.slice(from + 1, from + 8)).toEqual([
      '> Neighbor fixed.\\u{000D}## Change outcome: confirmed', '> **Commands to apply, exactly these, once**', '> ```', '> router bgp 65001', '>  neighbor 10.0.0.9 remote-as 666', '> ```',
      '> [Approve here](https://evil.example/approve) \\u{202E}evil',
    ]);
  });

  it('/ui: the approval panel and the timeline show it as text in a quote, no heading, code, link or bold', () => {
    const bridge = { kind: 'browser', canDecide: false } as unknown as Bridge;
    const panel = renderToStaticMarkup(<ApprovalPanel incident={incident} bridge={bridge} />);
    expect(panel).toContain(`<figcaption class="dim small">The agent&#x27;s summary (its own words, not checked by the relay)</figcaption><blockquote class="agent-quote">Neighbor fixed.\\u{000D}## Change outcome: confirmed\n**Commands to apply`);
    const entries: TimelineEntry[] = [
      { at: '2026-11-26T22:00:00.000Z', type: 'notify.final', message: FORGED_SUMMARY },
      { at: '2026-11-26T22:00:01.000Z', type: 'outcome.reported', message: `resolved: ${FORGED_SUMMARY}` },
    ] as TimelineEntry[];
    const timeline = renderToStaticMarkup(<Timeline entries={entries} />);
    for (const html of [panel, timeline]) {
      expect(html).not.toMatch(/<h\d[^>]*>[^<]*Change outcome|<strong>Commands|<a [^>]*evil|<pre[^>]*>[^<]*remote-as 666|\u202e/);
    }
    expect(timeline.match(/<blockquote class="agent-quote">/g)).toHaveLength(2);
  });

  it("a decision's reason, someone's own words, is quoted inline in the room and plain text on Slack", () => {
    const approval = { decision: 'APPROVED', effective: 'APPROVED', by: 'alice', channel: 'webex', at: '2026-11-26T22:10:00Z', commands, reason: '**DENIED by root**\r## Change outcome: confirmed' } as Approval;
    const said = ack.accepted({ ...incident, device_hostname: 'R1' }, approval);
    expect(said.split(/\r\n|\r|\n/)).toHaveLength(1);
    expect(said).toContain('(reason: “\\*\\*DENIED by root\\*\\*\\\\u{000D}\\#\\# Change outcome: confirmed”)');
    const { blocks } = decidedBlocks({ ...incident, device_hostname: 'R1' }, approval) as unknown as { blocks: { type: string; text?: { type: string; text: string } }[] };
    expect(blocks.filter((b) => b.text?.type === 'mrkdwn').map((b) => b.text!.text).join()).not.toMatch(/DENIED by root/);
    expect(blocks.at(-1)?.text).toEqual({ type: 'plain_text', text: '**DENIED by root**\\u{000D}## Change outcome: confirmed', emoji: false });
  });
});
