import { describe, expect, it } from 'vitest';
import { visibleLine, visibleLines } from '../../../src/core/approvals/visible-text';
import { terminalQuestion } from '../../../src/core/approvals/terminal-question';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import type { Incident } from '../../../src/core/incidents/model';

describe('lines as the device receives them', () => {
  it('leaves plain ASCII alone, indentation and all', () => {
    expect(visibleLines([' neighbor 10.0.0.2 description to R2 (core)', 'router bgp 65001'])).toEqual({
      lines: [' neighbor 10.0.0.2 description to R2 (core)', 'router bgp 65001'],
      warning: null,
    });
  });

  it('escapes bidi controls, zero-width characters and look-alike letters, and says so', () => {
    // "no neighbor 10.0.0.2 shutdown" with a right-to-left override, a zero-width space and a Cyrillic "о".
    const lines = ['no neighbor 10.0.0.2 \u202Eshutdown', 'no neigh\u200Bbor 10.0.0.9 shutdown', 'n\u043E neighbor 10.0.0.3 shutdown'];
    const shown = visibleLines(lines);
    expect(shown.lines).toEqual(['no neighbor 10.0.0.2 \\u{202E}shutdown', 'no neigh\\u{200B}bor 10.0.0.9 shutdown', 'n\\u{043E} neighbor 10.0.0.3 shutdown']);
    expect(shown.warning).toMatch(/^WARNING: lines 1, 2, 3 contain bidirectional-text controls .*invisible characters.*non-ASCII characters/);
    expect(visibleLine('a\tb')).toEqual({ text: 'a\\tb', oddities: ['control'] });
    expect(visibleLine('x\u{1F600}')).toEqual({ text: 'x\\u{1F600}', oddities: ['non_ascii'] });
  });

  it('every channel shows the escaped lines before the summary: card and terminal question', () => {
    const commands = ['router bgp 65001', 'no neighbor 10.0.0.2 \u202Eshutdown'];
    const summary = 'A very long summary from the model. '.repeat(20);
    const card = JSON.stringify(buildApprovalCard({ incident_id: 'INC-1', request_id: 'REQ-AAAA-BBBB', alert_def_id: 'AD000002', device: 'R1', summary, commands }));
    expect(card).toContain('\\\\u{202E}shutdown');
    expect(card).not.toContain('\u202E');
    expect(card.indexOf('\\\\u{202E}shutdown')).toBeLessThan(card.indexOf('A very long summary'));
    expect(card).toMatch(/WARNING: line 2 contains bidirectional-text controls/);

    const incident = {
      incident_id: 'HEADED-1',
      approval_request: { request_id: 'REQ-AAAA-BBBB', summary, device: 'R1', commands, rollback: [], requested_at: '', expires_at: 'soon', status: 'pending', lines_sha256: 'ab'.repeat(32), channels: ['terminal'], terminal_shown_at: null },
    } as unknown as Incident;
    const question = terminalQuestion(incident);
    expect(question).toContain('    no neighbor 10.0.0.2 \\u{202E}shutdown');
    expect(question).not.toContain('\u202E');
    expect(question.indexOf('\\u{202E}shutdown')).toBeLessThan(question.indexOf('A very long summary'));
    expect(question).toContain('request REQ-AAAA-BBBB');
  });
});
