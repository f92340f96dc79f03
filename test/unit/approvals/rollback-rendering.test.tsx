import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApprovalPanel } from '../../../renderer/components/approval-panel';
import type { Bridge } from '../../../renderer/bridge/contract';
import type { ApprovalAsk } from '../../../src/core/approvals/operator-channel';
import { terminalQuestion } from '../../../src/core/approvals/terminal-question';
import type { ConfigPreview } from '../../../src/runbooks/config-preview';
import { buildEvidenceBundle } from '../../../src/core/incidents/evidence-bundle';
import { renderEvidenceMarkdown } from '../../../src/core/incidents/evidence-markdown';
import { incidentSchema } from '../../../src/core/incidents/model';
import { renderSessionLog } from '../../../src/core/incidents/session-log-markdown';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { approvalBlocks } from '../../../src/adapters/channels/slack/blocks';

/**
 * The rollback a person is shown is what the relay will do: the one the device tool server computed
 * from the configuration before, never the agent's text. Here the agent proposes a rollback that
 * keeps the new limit and shuts the peer twice (what AD000004's model once sent).
 */
const commands = ['router bgp 65001', ' address-family ipv4 unicast', '  neighbor 10.0.0.2 maximum-prefix 120'];
const MISLEADING = ['router bgp 65001', ' neighbor 10.0.0.2 shutdown', ' neighbor 10.0.0.2 shutdown'];
const RELAY = ['router bgp 65001', ' address-family ipv4 unicast', '  no neighbor 10.0.0.2 maximum-prefix 120', '  neighbor 10.0.0.2 maximum-prefix 12'];
const preview: ConfigPreview = {
  device: 'R1',
  accepted: true,
  method: 'parser_checked',
  added: ['router bgp 65001 > address-family ipv4 unicast > neighbor 10.0.0.2 maximum-prefix 120'],
  removed: ['router bgp 65001 > address-family ipv4 unicast > neighbor 10.0.0.2 maximum-prefix 12'],
  problems: [],
  rollback: { method: 'restore', lines: RELAY },
};
const ask = { incident_id: 'INC-1', request_id: 'REQ-AAAA-BBBB', alert_def_id: 'AD000004', device: 'R1', summary: 'Raise the limit', commands, rollback: MISLEADING, expires_at: '2026-11-26T23:00:00Z', lines_sha256: 'ab'.repeat(32), evidence: [], preview } as ApprovalAsk;
const incident = incidentSchema.parse({
  incident_id: 'INC-1', session_id: 'ses_1', alert_def_id: 'AD000004', device_hostname: 'R1', mode: 'strict', state: 'awaiting_approval',
  created_at: '2026-11-26T22:00:00.000Z', updated_at: '2026-11-26T22:00:00.000Z', occurrences: 1, last_seen: '2026-11-26T22:00:00.000Z', warnings: [], alert_vars: {},
  approval_request: { request_id: 'REQ-AAAA-BBBB', summary: 'Raise the limit', device: 'R1', commands, rollback: MISLEADING, requested_at: '2026-11-26T22:00:00Z', expires_at: '2026-11-26T23:00:00Z', status: 'pending', lines_sha256: 'ab'.repeat(32), channels: ['terminal'], preview },
  approval: null, outcome: null, dedup_key: 'k', delivery: { attempts: 1, next_attempt_at: null, last_error: null },
});

/** Every text a channel shows, as lines with their indentation (no-break spaces read as spaces). */
const linesOf = (text: string) => text.replace(/\u00a0/g, ' ').split('\n');
const tagsAsBreaks = (html: string) => html.replace(/<[^>]+>/g, '\n');
const cardTexts = (node: unknown): string[] => {
  if (Array.isArray(node)) return node.flatMap(cardTexts);
  if (node && typeof node === 'object') return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) => (k === 'text' && typeof v === 'string' ? [v] : cardTexts(v)));
  return [];
};

describe("the rollback every channel shows is the relay's", () => {
  const shownBy: Record<string, string> = {
    'Webex card': cardTexts(buildApprovalCard(ask).body).join('\n'),
    'Slack message': cardTexts(approvalBlocks(ask).blocks).join('\n').replace(/&gt;/g, '>'),
    terminal: terminalQuestion(incident),
    '/ui and tray': tagsAsBreaks(renderToStaticMarkup(<ApprovalPanel incident={incident} bridge={{ kind: 'browser', canDecide: false } as unknown as Bridge} />)),
  };
  for (const [channel, text] of Object.entries(shownBy)) {
    it(`${channel}: the relay's restore lines under its own heading; the agent's shut-twice rollback nowhere`, () => {
      expect(text).toContain('Rollback (computed by the relay from the configuration before)');
      const lines = linesOf(text).map((l) => l.trim());
      expect(lines).toContain('no neighbor 10.0.0.2 maximum-prefix 120');
      expect(lines).toContain('neighbor 10.0.0.2 maximum-prefix 12');
      expect(lines).not.toContain('neighbor 10.0.0.2 shutdown');
    });
  }

  it("evidence and session log: the relay's rollback, and the agent's only as its labelled claim", () => {
    const bundle = buildEvidenceBundle({ incident, timeline: [], now: new Date('2026-11-26T23:00:00Z') });
    expect(bundle.approval_request?.relay_rollback).toEqual(['Unless the change is confirmed, the relay applies these lines, then reads the configuration back to check:', ...RELAY]);
    for (const md of [renderEvidenceMarkdown(bundle), renderSessionLog(incident, [])]) {
      const relayAt = md.indexOf('Rollback (computed by the relay from the configuration before):');
      const claimAt = md.indexOf("The agent's proposed rollback (its claim; the relay never runs it):");
      expect(relayAt).toBeGreaterThan(-1);
      expect(claimAt).toBeGreaterThan(relayAt);
      expect(md.slice(relayAt, claimAt)).toContain('  no neighbor 10.0.0.2 maximum-prefix 120');
      expect(md.slice(relayAt, claimAt)).not.toContain('neighbor 10.0.0.2 shutdown');
    }
  });

  it('without a computed rollback every channel says what the relay does instead, never the agent\'s lines', () => {
    const bare = { ...ask, preview: null } as ApprovalAsk;
    const card = cardTexts(buildApprovalCard(bare).body).join('\n');
    expect(card).toContain('the relay puts back the running configuration it reads just before applying');
    expect(linesOf(card).map((l) => l.trim())).not.toContain('neighbor 10.0.0.2 shutdown');
  });
});
