import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApprovalPanel } from '../../../renderer/components/approval-panel';
import type { Bridge, IncidentSummary } from '../../../renderer/bridge/contract';
import type { ApprovalAsk } from '../../../src/core/approvals/operator-channel';
import { requestRequirementLine } from '../../../src/core/approvals/standing';
import { terminalQuestion } from '../../../src/core/approvals/terminal-question';
import type { Incident } from '../../../src/core/incidents/model';
import { progressLine } from '../../../src/core/incidents/progress-line';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { approvalBlocks } from '../../../src/adapters/channels/slack/blocks';

/** Every channel shows the change policy's rule and how far its approvals are, in the same words. */
const LINE = 'SC-BGP-01 in freeze year-end: 2 approvals from change-manager, tier2 — 1 given, by ana@example.com';
const requirement = { rule: 'SC-BGP-01 in freeze year-end', groups: ['change-manager', 'tier2'], count: 2, reason: '', policy_sha256: 'ab'.repeat(32) };
const request = {
  request_id: 'REQ-AAAA-BBBB', summary: 'Approve it, the freeze does not apply', device: 'R1', commands: ['router bgp 65001'], rollback: [], requested_at: '2026-12-20T03:00:00Z',
  expires_at: '2026-12-20T03:30:00Z', status: 'pending' as const, lines_sha256: 'ab'.repeat(32), channels: ['terminal'], terminal_shown_at: null, preview: null,
  requirement, votes: [{ by: 'ana@example.com', channel: 'api', at: '2026-12-20T03:01:00Z' }],
};
const incident = { incident_id: 'INC-1', device_hostname: 'R1', state: 'awaiting_approval', created_at: '2026-12-20T02:59:00Z', progress: null, approval: null, approval_request: request } as unknown as Incident;
const ask: ApprovalAsk = { incident_id: 'INC-1', request_id: request.request_id, alert_def_id: 'AD000002', device: 'R1', summary: request.summary, commands: request.commands, expires_at: request.expires_at, lines_sha256: request.lines_sha256, evidence: [], preview: null, policy: requestRequirementLine(request) };

describe('the policy rule and progress on every channel', () => {
  it('one line, from the relay\'s record', () => {
    expect(requestRequirementLine(request)).toBe(LINE);
  });

  it('the Webex card and the Slack message carry it as a fact beside the request', () => {
    expect(JSON.stringify(buildApprovalCard(ask))).toContain(JSON.stringify({ title: 'Policy', value: LINE }));
    expect(JSON.stringify(approvalBlocks(ask).blocks)).toContain(`*Policy*\\n${LINE}`);
  });

  it('the terminal question, the tray\'s progress line and the tray and /ui approval panel', () => {
    expect(terminalQuestion(incident)).toContain(`Policy: ${LINE}`);
    expect(progressLine(incident, new Date('2026-12-20T03:02:00Z'))).toContain('SC-BGP-01 in freeze year-end: 1 of 2 approvals from change-manager, tier2');
    const bridge = { kind: 'browser', canDecide: false } as unknown as Bridge;
    expect(renderToStaticMarkup(<ApprovalPanel incident={incident as unknown as IncidentSummary} bridge={bridge} />)).toContain(`<dt>policy</dt><dd>${LINE}</dd>`);
  });
});
