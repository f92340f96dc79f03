import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildApprovalCard, CARD_MAX_BYTES, type ApprovalCardInput } from '../../../src/adapters/channels/webex/approval-card';

// The library's ES build imports extension-less paths Node cannot resolve; its UMD build parses fine without a DOM.
const AC = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

/** Elements and actions the Webex clients render (Buttons and Cards guide); anything else is dropped or refused there. */
const WEBEX_ELEMENTS = new Set(['TextBlock', 'RichTextBlock', 'TextRun', 'FactSet', 'Container', 'ColumnSet', 'Column', 'Image', 'ImageSet', 'ActionSet', 'Input.Text', 'Input.Number', 'Input.Date', 'Input.Time', 'Input.Toggle', 'Input.ChoiceSet']);
const WEBEX_ACTIONS = new Set(['Action.Submit', 'Action.OpenUrl', 'Action.ShowCard', 'Action.ToggleVisibility']);

const input: ApprovalCardInput = {
  incident_id: 'INC-20250101T000000Z',
  request_id: 'REQ-TEST-0001',
  alert_def_id: 'AD000002',
  device: 'rtr-edge-01',
  summary: 'BGP neighbor 10.0.0.2 is administratively down.',
  commands: ['router bgp 65001', ' no neighbor 10.0.0.2 shutdown'],
  artifact_ref: 'intelligence-artifacts/AD000002/RAW.yaml#repair_no_shutdown',
  expires_at: '2025-01-01T00:30:00Z',
  lines_sha256: '6d9ff45b39df'.padEnd(64, '0'),
  evidence: [{ command: 'rtr-edge-01# show ip bgp neighbors 10.0.0.2', lines: ['BGP neighbor is 10.0.0.2,  remote AS 65002', ' Administratively shut down', '  BGP state = Idle'] }],
};

/** What the Adaptive Cards library reports when it parses the card as the version it declares. */
function problems(card: object): string[] {
  const ctx = new AC.SerializationContext(AC.Versions.v1_3);
  new AC.AdaptiveCard().parse(card, ctx);
  return Array.from({ length: ctx.eventCount }, (_, i) => ctx.getEventAt(i).message);
}

function types(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => types(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.type === 'string' && o.type !== 'AdaptiveCard') out.add(o.type);
    Object.values(o).forEach((v) => types(v, out));
  }
  return out;
}

describe('the approval card against the Adaptive Cards library', () => {
  it('parses as Adaptive Card 1.3 with no unknown element and no property newer than 1.3', () => {
    expect(problems(buildApprovalCard(input))).toEqual([]);
    // The check itself sees what it must: a 1.5 property is reported.
    expect(problems({ type: 'AdaptiveCard', version: '1.3', body: [{ type: 'TextBlock', text: 'x', style: 'heading' }] })).toEqual([expect.stringMatching(/supported in version 1\.5/)]);
  });

  it('uses only elements and actions Webex renders', () => {
    const card = buildApprovalCard(input);
    const used = types(card.body);
    for (const t of used) expect(WEBEX_ELEMENTS.has(t) || WEBEX_ACTIONS.has(t), t).toBe(true);
    for (const a of card.actions ?? []) expect(WEBEX_ACTIONS.has(a.type)).toBe(true);
  });

  it('shows the evidence beside the lines, and gives it up first when the card is too big', () => {
    const text = JSON.stringify(buildApprovalCard(input));
    expect(text).toContain('Evidence (what the agents read on the device)');
    expect(text).toContain('rtr-edge-01# show ip bgp neighbors 10.0.0.2');
    expect(text).toContain('\u00a0\u00a0\u00a0Administratively shut down');
    // A big evidence block and a change that just fits: the lines stay whole (Approve offered), the evidence is cut.
    const evidence = Array.from({ length: 4 }, (_, k) => ({ command: `show cmd ${k}`, lines: Array.from({ length: 200 }, (_, i) => `line ${i} ${'x'.repeat(600)}`) }));
    const commands = Array.from({ length: 30 }, (_, i) => ` neighbor 10.0.${i}.2 description peer-${i}`);
    const card = buildApprovalCard({ ...input, commands, evidence });
    expect(Buffer.byteLength(JSON.stringify(card))).toBeLessThanOrEqual(CARD_MAX_BYTES);
    expect(card.actions?.map((a) => a.title)).toEqual(['Approve', 'Deny']);
    for (const c of commands) expect(JSON.stringify(card)).toContain(c.trim());
    expect(JSON.stringify(card)).not.toContain('line 5 xxx');
    expect(problems(card)).toEqual([]);
  });

  it('stays under the size budget with very long change lists, and is never refused for its size', () => {
    const long = Array.from({ length: 200 }, (_, i) => ` neighbor 10.0.${i}.2 description ${'peer-with-a-very-long-description-'.repeat(12)}${i}`);
    const card = buildApprovalCard({ ...input, commands: long });
    expect(Buffer.byteLength(JSON.stringify(card))).toBeLessThanOrEqual(CARD_MAX_BYTES);
    expect(problems(card)).toEqual([]);
    expect(JSON.stringify(card)).toContain('Too many lines to show them all here');
    expect(card.actions?.map((a) => a.title)).toEqual(['Deny']);
  });
});
