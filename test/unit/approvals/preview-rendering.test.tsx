import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApprovalPanel } from '../../../renderer/components/approval-panel';
import type { Bridge } from '../../../renderer/bridge/contract';
import type { ApprovalAsk } from '../../../src/core/approvals/operator-channel';
import { terminalQuestion } from '../../../src/core/approvals/terminal-question';
import type { ConfigPreview } from '../../../src/runbooks/config-preview';
import type { Incident } from '../../../src/core/incidents/model';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { approvalBlocks } from '../../../src/adapters/channels/slack/blocks';

/** Every channel shows the dry run beside the lines, or says there is none. */
const commands = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const preview: ConfigPreview = {
  device: 'R1',
  accepted: true,
  method: 'predicted',
  added: ['router bgp 65001 > neighbor 10.0.0.2 description back'],
  removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'],
  problems: [],
};
const ask = (p: ConfigPreview | null): ApprovalAsk => ({
  incident_id: 'INC-1',
  request_id: 'REQ-AAAA-BBBB',
  alert_def_id: 'AD000002',
  device: 'R1',
  summary: 'Bring the neighbor back',
  commands,
  expires_at: '2026-11-26T23:00:00Z',
  lines_sha256: 'ab'.repeat(32),
  evidence: [],
  preview: p,
});
const request = (p: ConfigPreview | null) => ({
  request_id: 'REQ-AAAA-BBBB', summary: 'Bring the neighbor back', device: 'R1', commands, rollback: [], requested_at: '2026-11-26T22:00:00Z',
  expires_at: '2026-11-26T23:00:00Z', status: 'pending' as const, lines_sha256: 'ab'.repeat(32), channels: ['terminal'], terminal_shown_at: null, preview: p,
});
const incident = (p: ConfigPreview | null) => ({ incident_id: 'INC-1', state: 'awaiting_approval', approval: null, approval_request: request(p) }) as unknown as Incident;

describe('the preview beside the lines', () => {
  it('the Webex card shows the added and removed lines right after the lines to apply', () => {
    const card = JSON.stringify(buildApprovalCard(ask(preview)));
    const at = (s: string) => card.indexOf(s);
    expect(at('Would change (predicted from the live running configuration):')).toBeGreaterThan(at('no neighbor 10.0.0.2 shutdown'));
    expect(card).toContain('+ router bgp 65001 > neighbor 10.0.0.2 description back');
    expect(card).toContain('- router bgp 65001 > neighbor 10.0.0.2 shutdown');
    expect(at('- router bgp 65001 > neighbor 10.0.0.2 shutdown')).toBeLessThan(at('Bring the neighbor back'));
    expect(JSON.stringify(buildApprovalCard(ask(null)))).toContain('No preview: the relay has no device tools to dry-run the change.');
  });

  it('Slack blocks show the same lines in a code block', () => {
    const text = JSON.stringify(approvalBlocks(ask(preview)).blocks);
    expect(text).toContain('*Would change (predicted from the live running configuration):*');
    expect(text).toContain('+ router bgp 65001 &gt; neighbor 10.0.0.2 description back\\n- router bgp 65001 &gt; neighbor 10.0.0.2 shutdown');
    expect(JSON.stringify(approvalBlocks(ask(null)).blocks)).toContain('_No preview');
  });

  it('the terminal question shows them under the lines', () => {
    const q = terminalQuestion(incident(preview));
    expect(q).toContain(
      ['    no neighbor 10.0.0.2 shutdown', '', 'Would change (predicted from the live running configuration):', '    + router bgp 65001 > neighbor 10.0.0.2 description back', '    - router bgp 65001 > neighbor 10.0.0.2 shutdown'].join('\n'),
    );
    expect(terminalQuestion(incident(null))).toContain('No preview');
  });

  it('the tray and /ui approval panel: "Would change" with + and -, or "No preview"', () => {
    const bridge = { kind: 'browser', canDecide: false } as unknown as Bridge;
    const html = (p: ConfigPreview | null) => renderToStaticMarkup(<ApprovalPanel incident={incident(p)} bridge={bridge} />);
    const shown = html(preview);
    expect(shown).toContain('Would change (predicted from the live running configuration)');
    expect(shown).toContain('+ router bgp 65001 &gt; neighbor 10.0.0.2 description back\n- router bgp 65001 &gt; neighbor 10.0.0.2 shutdown');
    expect(html(null)).toContain('No preview');
  });
});
