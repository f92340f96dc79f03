import { describe, expect, it } from 'vitest';
import { approvalFallbackMarkdown, buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { adaptiveCardSchema, faultApprovalDataSchema } from '../../../src/adapters/channels/webex/schemas';

const input = {
  incident_id: 'INC-20250101T000000Z',
  request_id: 'REQ-TEST-0001',
  alert_def_id: 'AD000002',
  device: 'rtr-edge-01',
  summary: 'BGP neighbor 10.0.0.2 is administratively down.',
  commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'],
  artifact_ref: 'intelligence-artifacts/AD000002/raw.yaml',
  expires_at: '2025-01-01T00:30:00Z',
};

const texts = (node: unknown): string[] => {
  if (Array.isArray(node)) return node.flatMap(texts);
  if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    const own = ['text', 'value'].map((k) => o[k]).filter((v): v is string => typeof v === 'string');
    return [...own, ...Object.values(o).flatMap(texts)];
  }
  return [];
};

describe('approval card', () => {
  it('is an Adaptive Card 1.3 whose Approve/Deny buttons submit the routing data', () => {
    const card = buildApprovalCard(input);

    expect(adaptiveCardSchema.parse(card).version).toBe('1.3');
    expect(card.actions).toEqual([
      expect.objectContaining({
        type: 'Action.Submit',
        title: 'Approve',
        data: { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id: 'INC-20250101T000000Z', request_id: 'REQ-TEST-0001', decision: 'APPROVED' },
      }),
      expect.objectContaining({
        type: 'Action.Submit',
        title: 'Deny',
        data: { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id: 'INC-20250101T000000Z', request_id: 'REQ-TEST-0001', decision: 'DENIED' },
      }),
    ]);
    for (const a of card.actions ?? []) expect(faultApprovalDataSchema.safeParse(a.data).success).toBe(true);
  });

  it('shows the operator what will run, how the relay undoes it, and when the request expires', () => {
    const preview = { device: 'rtr-edge-01', accepted: true, method: 'parser_checked' as const, added: [], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'], problems: [], rollback: { method: 'restore' as const, lines: ['router bgp 65001', ' neighbor 10.0.0.2 shutdown'] } };
    const shown = texts(buildApprovalCard({ ...input, preview })).join('\n');
    for (const line of [...input.commands, 'Rollback (computed by the relay from the configuration before)', '\u00a0neighbor 10.0.0.2 shutdown', input.device, input.summary, input.expires_at, input.artifact_ref]) {
      expect(shown).toContain(line);
    }
  });

  it("never shows the agent's proposed rollback: a misleading one does not reach the card", () => {
    const claim = { ...input, rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'neighbor 10.0.0.2 shutdown'] } as typeof input;
    const shown = texts(buildApprovalCard(claim));
    expect(shown).not.toContain('neighbor 10.0.0.2 shutdown');
    expect(shown.join('\n')).toContain('the relay puts back the running configuration it reads just before applying');
  });

  it('shows the dry run beside the lines: what they add and remove, or that there is no preview', () => {
    const preview = { device: 'rtr-edge-01', accepted: true, method: 'candidate' as const, added: [], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'], problems: [] };
    const shown = texts(buildApprovalCard({ ...input, preview }));
    const at = shown.indexOf('Would change (dry run on the device\'s candidate):');
    expect(at).toBeGreaterThan(shown.indexOf('no neighbor 10.0.0.2 shutdown'));
    expect(shown[at + 1]).toBe('- router bgp 65001 > neighbor 10.0.0.2 shutdown');
    expect(texts(buildApprovalCard(input))).toContain('No preview: the relay has no device tools to dry-run the change.');
  });

  it('offers an optional reason field that travels with the submission', () => {
    const card = buildApprovalCard(input);
    expect(card.body).toContainEqual(expect.objectContaining({ type: 'Input.Text', id: 'reason' }));
  });

  it('shows a long command list in part, says how many more there are, and then offers only Deny', () => {
    const commands = Array.from({ length: 55 }, (_, i) => `interface Gi0/${i}`);
    const card = buildApprovalCard({ ...input, commands });
    const shown = texts(card);
    expect(shown).toContain('interface Gi0/39');
    expect(shown).not.toContain('interface Gi0/40');
    expect(shown).toContain('… and 15 more');
    expect(card.actions?.map((a) => a.title)).toEqual(['Deny']);
  });

  it('shows the lines verbatim, never as Markdown, with their indentation and hash', () => {
    const commands = ['ip as-path access-list 10 permit _65002_', 'router bgp 65001', '  neighbor 10.0.0.2 description **core** [R2](x)'];
    const card = buildApprovalCard({ ...input, commands, lines_sha256: 'abcdef0123456789'.repeat(4) });
    const runs = JSON.stringify(card.body);
    // Each line is a TextRun (plain text), not a TextBlock (Markdown).
    for (const line of commands) {
      const shown = line.replace(/^ +/, (s) => '\u00a0'.repeat(s.length));
      expect(card.body).toContainEqual(expect.objectContaining({ type: 'Container', items: expect.arrayContaining([{ type: 'RichTextBlock', spacing: 'None', inlines: [{ type: 'TextRun', text: shown, fontType: 'Monospace' }] }]) }));
    }
    expect(runs).not.toMatch(/"type":"TextBlock","text":"ip as-path/);
    expect(texts(card)).toContain('abcdef012345');
  });

  it('refuses incomplete input with the missing fields named', () => {
    expect(() => buildApprovalCard({ ...input, commands: [], incident_id: '' })).toThrow(/incident_id.*commands|commands.*incident_id/);
  });

  it('has a fallback for clients without cards that names the incident and device', () => {
    expect(approvalFallbackMarkdown(input)).toMatch(/INC-20250101T000000Z.*AD000002.*rtr-edge-01/);
  });
});
