import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApprovalPanel } from '../../../renderer/components/approval-panel';
import type { Bridge } from '../../../renderer/bridge/contract';
import { incidentDetailSchema } from '../../../renderer/bridge/ui-event-schema';
import { createNotifier } from '../../../electron/notifications';
import { decisionDialogOptions } from '../../../electron/decision-dialog';
import { planAsLines, planSha256 } from '../../../src/core/approvals/plan-lines';
import { NOT_SHOWN_DEVICE } from '../../../src/core/approvals/plan-view';
import { terminalQuestion } from '../../../src/core/approvals/terminal-question';
import { createBus } from '../../../src/core/events/bus';
import type { RelayEvents } from '../../../src/core/events/relay-events';
import { buildEvidenceBundle, evidenceBundleSchema } from '../../../src/core/incidents/evidence-bundle';
import { renderEvidenceMarkdown } from '../../../src/core/incidents/evidence-markdown';
import { incidentSchema, publicIncident } from '../../../src/core/incidents/model';
import type { ConfigPreview } from '../../../src/runbooks/config-preview';
import { silent } from '../../helpers/relay';
import { fakeNotifications } from '../electron/fakes';

/**
 * A change plan reaches people grouped by device on every channel the relay renders itself: for each
 * device its lines, the relay's dry run on it and the relay's rollback of it, under the plan's one
 * request id and hash. R1 is a CLI router (the relay restores it), PE1 a NETCONF device (its
 * confirmed commit reverts); the third device's name is not in the inventory's format and is never shown.
 */
const R1 = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
// A Cyrillic "о" in "nеighbor": shown escaped, with a warning, never as the ASCII it looks like.
const PE1 = ['<config>', '<bgp xmlns="urn:fault-relay:lab:bgp">', '<neighbor><address>10.0.0.1</address><shutdown>false</shutdown></neighbor>', '</bgp>', '</config>'];
const ODD = ['router bgp 65003', 'n\u0435ighbor 10.0.0.5 description x'];
const r1Preview: ConfigPreview = { device: 'R1', accepted: true, method: 'config_session', added: [], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'], problems: [], rollback: { method: 'restore', lines: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] } };
const pe1Preview: ConfigPreview = { device: 'PE1', accepted: true, method: 'candidate', added: ['/bgp/neighbor[address="10.0.0.1"]/shutdown = false'], removed: ['/bgp/neighbor[address="10.0.0.1"]/shutdown = true'], problems: [], rollback: { method: 'device_reverts', lines: [] } };
const plan = [
  { device: 'R1', commands: R1, rollback: [], preview: r1Preview },
  { device: 'PE1', commands: PE1, rollback: [], preview: pe1Preview },
  { device: 'R3\u202e<img src=x>', commands: ODD, rollback: [], preview: null },
];
const sha = planSha256(plan);
const incident = incidentSchema.parse({
  incident_id: 'INC-9', session_id: 'ses_1', alert_def_id: 'AD000009', device_hostname: 'R1', mode: 'strict', state: 'awaiting_approval',
  created_at: '2026-11-26T22:00:00.000Z', updated_at: '2026-11-26T22:00:00.000Z', occurrences: 1, last_seen: '2026-11-26T22:00:00.000Z', warnings: [], alert_vars: {},
  approval_request: { request_id: 'REQ-PLAN-0001', summary: 'Both ends', device: 'R1', commands: planAsLines(plan), rollback: [], requested_at: '2026-11-26T22:00:00Z', expires_at: '2026-11-26T23:00:00Z', status: 'pending', lines_sha256: sha, channels: ['desktop'], preview: null, plan },
  approval: null, outcome: null, dedup_key: 'k', delivery: { attempts: 1, next_attempt_at: null, last_error: null },
});
const shown = publicIncident(incident);
const tags = (html: string) => html.replace(/<[^>]+>/g, '\n').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').split('\n').map((l) => l.trim()).filter(Boolean);
const after = (lines: string[], start: string, n: number) => lines.slice(lines.indexOf(start), lines.indexOf(start) + n);

describe('a change plan, grouped by device, on every channel the relay renders', () => {
  it('the /ui and the tray show each device with its own lines, preview and rollback, under the plan id and hash', () => {
    // What /sessions and /events carry, read back through the renderer's own schema.
    const detail = incidentDetailSchema.parse(JSON.parse(JSON.stringify({ ...shown, timeline: [] })));
    const html = renderToStaticMarkup(<ApprovalPanel incident={detail} bridge={{ kind: 'browser', canDecide: false } as unknown as Bridge} />);
    const text = tags(html);
    expect(text).toContain('REQ-PLAN-0001');
    expect(text).toContain(`sha256 ${sha.slice(0, 12)}`);
    expect(text).toContain(`R1, PE1, ${NOT_SHOWN_DEVICE}`);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u202e');
    // R1: its lines, then its dry run, then the relay's restore lines, before PE1 begins.
    expect(after(text, '1/3 R1', 3)).toEqual(['1/3 R1', 'Lines for R1', 'router bgp 65001\nno neighbor 10.0.0.2 shutdown'.split('\n')[0]!]);
    expect(html.indexOf('no neighbor 10.0.0.2 shutdown')).toBeLessThan(html.indexOf('- router bgp 65001 &gt; neighbor 10.0.0.2 shutdown'));
    expect(html.indexOf('- router bgp 65001 &gt; neighbor 10.0.0.2 shutdown')).toBeLessThan(html.indexOf('Rollback of R1'));
    expect(html.indexOf('Rollback of R1')).toBeLessThan(html.indexOf('2/3 PE1'));
    // PE1: its XML lines, its leaf changes, and the device's own revert as its rollback.
    const pe1 = html.slice(html.indexOf('2/3 PE1'), html.indexOf(`3/3 ${NOT_SHOWN_DEVICE}`));
    expect(pe1).toContain('&lt;shutdown&gt;false&lt;/shutdown&gt;');
    expect(pe1).toContain('+ /bgp/neighbor[address=&quot;10.0.0.1&quot;]/shutdown = false');
    expect(pe1).toContain('confirmed commit reverts to the configuration before it');
    // The third device's look-alike line is escaped and warned about; it had no preview.
    const third = html.slice(html.indexOf(`3/3 ${NOT_SHOWN_DEVICE}`));
    expect(third).toContain('n\\u{0435}ighbor 10.0.0.5');
    expect(third).toMatch(/role="alert">WARNING: line 2 contains non-ASCII/);
    expect(third).toContain('No preview');
    // No device's heading line ("! device R1") is shown as if it were a line to apply.
    expect(html).not.toContain('! device');
  });

  it('the native notification is short, names the devices and offers no Approve: the plan is read in the window', () => {
    const bus = createBus<RelayEvents>();
    const { shown: banners, FakeNotification } = fakeNotifications();
    const notifier = createNotifier({ Notification: FakeNotification, supportsActions: true, bus, decide: () => ({ status: 'unknown_incident' }), user: 'u', openIncident: () => {}, logger: silent });
    bus.publish('approval.requested', { incident: shown, request: incident.approval_request! });
    notifier.stop();
    expect(banners).toHaveLength(1);
    expect(banners[0]!.title).toBe(`Approval needed: plan over R1, PE1, ${NOT_SHOWN_DEVICE}`);
    expect(banners[0]!.body!.split('\n')[0]).toBe(`plan over R1, PE1, ${NOT_SHOWN_DEVICE}: 9 lines (plan ${sha.slice(0, 12)}, request REQ-PLAN-0001): open the window to review each device's lines, preview and rollback before deciding.`);
    expect(banners[0]!.actions).toBeUndefined();
  });

  it('the terminal question and the tray dialog list the devices, each with its lines, preview and rollback', () => {
    for (const text of [terminalQuestion(incident), String(decisionDialogOptions(incident, 'APPROVED').detail)]) {
      const lines = text.split('\n').map((l) => l.trim());
      expect(text).toContain(`Plan REQ-PLAN-0001 over R1, PE1, ${NOT_SHOWN_DEVICE} (plan hash ${sha.slice(0, 12)})`);
      expect(after(lines, 'Device 1 of 3: R1', 8)).toEqual([
        'Device 1 of 3: R1',
        'Configuration lines (exactly these are applied, once, on R1):',
        'router bgp 65001',
        'no neighbor 10.0.0.2 shutdown',
        expect.stringMatching(/^Would change \(.+\):$/),
        '- router bgp 65001 > neighbor 10.0.0.2 shutdown',
        'Rollback of R1 (computed by the relay from the configuration before):',
        'Unless the change is confirmed, the relay applies these lines, then reads the configuration back to check:',
      ]);
      expect(lines).toContain("Unless the change is confirmed, the device's confirmed commit reverts to the configuration before it.");
      expect(lines).toContain('n\\u{0435}ighbor 10.0.0.5 description x');
      expect(text).not.toContain('\u202e');
    }
    expect(terminalQuestion(incident).split('\n')[0]).toBe(`APPROVAL NEEDED — INC-9 plan over R1, PE1, ${NOT_SHOWN_DEVICE} — request REQ-PLAN-0001`);
  });

  it('the evidence bundle keeps the plan by device, and its hash is checked as the plan\'s', () => {
    const bundle = buildEvidenceBundle({ incident, timeline: [], now: new Date('2026-11-26T23:30:00Z') });
    expect(evidenceBundleSchema.parse(bundle).approval_request).toMatchObject({ lines_sha256: sha, lines_sha256_matches: true, plan: { request_id: 'REQ-PLAN-0001', devices: [{ device: 'R1', lines: R1 }, { device: 'PE1', lines: PE1 }, { device: NOT_SHOWN_DEVICE }] } });
    const md = renderEvidenceMarkdown(bundle);
    expect(md).toContain('(matches the lines)');
    expect(md).toContain(`| Plan over | R1, PE1, ${NOT_SHOWN_DEVICE} |`);
    const r1 = md.slice(md.indexOf('### Device 1 of 3: `R1`'), md.indexOf('### Device 2 of 3: `PE1`'));
    expect(r1).toContain('router bgp 65001\nno neighbor 10.0.0.2 shutdown');
    expect(r1).toContain('- router bgp 65001 > neighbor 10.0.0.2 shutdown');
    expect(r1).toContain('neighbor 10.0.0.2 shutdown\n```');
    expect(md.slice(md.indexOf('### Device 2 of 3: `PE1`'))).toContain("the device's confirmed commit reverts");
    expect(md).not.toContain('\u202e');
  });
});
