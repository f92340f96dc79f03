import { toDecideOutcome } from '../../../electron/desktop-api';
import { fakeNotifications } from './fakes';
import { linesSha256 } from '../../../src/core/approvals/lines';
import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../../src/relay/create-relay';
import { createNotifier } from '../../../electron/notifications';
import { decideAs } from '../../helpers/decide-as';
import { silent } from '../../helpers/relay';
import { COMMANDS, awaitingApproval, runningIncident, desktopRelay } from './desktop-relay';

/** Stands in for Electron's Notification: records what was shown and lets the test click. */

describe('native notifications → decide', () => {
  let relay: Relay | undefined;
  let stop: (() => void) | undefined;
  afterEach(async () => {
    stop?.();
    await relay?.close();
    relay = undefined;
  });

  async function setUp(supportsActions: boolean, supported = true) {
    relay = await desktopRelay();
    const r = relay;
    const { shown, FakeNotification } = fakeNotifications();
    const opened: string[] = [];
    const failures: string[] = [];
    // The tray's decide, as electron/tray-wiring.ts passes it; a click's answer is shown once `decided()` resolves.
    let last: Promise<unknown> = Promise.resolve();
    const notifier = createNotifier({
      Notification: FakeNotification,
      supportsActions,
      bus: r.bus,
      decide: (c) => {
        const outcome = r.decide(c).then(toDecideOutcome);
        last = outcome;
        return outcome;
      },
      user: 'oncall-jane',
      openIncident: (id) => opened.push(id),
      isSupported: () => supported,
      onNotificationFailed: (id, message) => failures.push(`${id}: ${message}`),
      logger: silent,
    });
    stop = notifier.stop;
    return { r, shown, opened, failures, decided: () => last };
  }

  it('a notification the system refuses opens the window on the approval and says so', async () => {
    const { r, shown, opened, failures } = await setUp(true);
    const id = await awaitingApproval(r, 'R1');
    shown.at(-1)!.fire('failed');
    expect(opened).toEqual([id]);
    expect(failures).toEqual([expect.stringMatching(new RegExp(`^${id}: The desktop notification could not be shown .*open in the Fault Relay window`))]);
  });

  it('with notifications turned off, an approval opens the window instead', async () => {
    const { r, shown, opened, failures } = await setUp(true, false);
    const id = await awaitingApproval(r, 'R2');
    expect(shown).toEqual([]);
    expect(opened).toEqual([id]);
    expect(failures).toEqual([expect.stringMatching(/not supported or are turned off/)]);
  });

  it('a change too long to show in full offers no Approve in the notification: it opens the window to review every line', async () => {
    const { r, shown } = await setUp(true);
    const id = await runningIncident(r, 'R1');
    const lines = ['router bgp 65001', ...Array.from({ length: 30 }, (_, i) => ` neighbor 10.0.${i}.2 description peer ${i}`)];
    await r.approvals.request({ incident_id: id, summary: 'Describe every peer', device: 'R1', commands: lines });
    const request = shown.at(-1)!;
    expect(request.actions).toBeUndefined();
    const requestId = r.incidents.get(id)!.approval_request!.request_id;
    expect(request.body).toBe(`31 lines (lines ${linesSha256(lines).slice(0, 12)}, request ${requestId}; would change: no preview): open the window to review them before deciding.\n> Describe every peer`);
  });

  it('macOS: shows device, summary and the exact commands; Approve decides as the OS user over the desktop channel', async () => {
    const { r, shown, decided } = await setUp(true);
    const id = await awaitingApproval(r, 'R1');
    const request = shown.at(-1)!;
    expect(request.title).toBe('Approval needed: R1');
    // The lines first, then the hash and the request, the model's summary last: a long summary never hides the lines.
    const requestId = r.incidents.get(id)!.approval_request!.request_id;
    expect(request.body).toBe([...COMMANDS.map((c) => `  ${c}`), `(lines ${linesSha256(COMMANDS).slice(0, 12)}, request ${requestId}; would change: no preview)`, '> Re-enable the BGP neighbor'].join('\n'));
    expect(request.actions?.map((a) => a.text)).toEqual(['Approve', 'Deny']);

    request.fire('action', 0);
    await decided();
    const incident = r.incidents.get(id)!;
    expect(incident.state === 'approved' || incident.state === 'running').toBe(true);
    expect(incident.approval).toMatchObject({ decision: 'APPROVED', by: 'oncall-jane', channel: 'desktop', commands: COMMANDS });
    expect(request.closed).toBe(true);
    expect(shown.at(-1)).toMatchObject({ title: 'Approved: R1', body: 'by oncall-jane via desktop' });
  });

  it('says in one short line what the dry run predicts the lines would change', async () => {
    const { r, shown } = await setUp(true);
    const id = await runningIncident(r, 'R1');
    const preview = { device: 'R1', accepted: true, method: 'predicted' as const, added: [], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'], problems: [] };
    await r.approvals.request({ incident_id: id, summary: 'Re-enable the BGP neighbor', device: 'R1', commands: COMMANDS, preview });
    expect(shown.at(-1)!.body).toContain('; would change: +0 \u22121 lines)');
  });

  it('macOS: Deny denies', async () => {
    const { r, shown, decided } = await setUp(true);
    const id = await awaitingApproval(r);
    shown.at(-1)!.fire('action', 1);
    await decided();
    expect(r.incidents.get(id)?.approval).toMatchObject({ decision: 'DENIED', by: 'oncall-jane', channel: 'desktop' });
  });

  it('Linux/Windows: no buttons; a click opens the approval view and decides nothing', async () => {
    const { r, shown, opened } = await setUp(false);
    const id = await awaitingApproval(r);
    const request = shown.at(-1)!;
    expect(request.actions).toBeUndefined();
    request.fire('click');
    expect(opened).toEqual([id]);
    expect(r.incidents.get(id)?.state).toBe('awaiting_approval');
  });

  it('a click on a stale notification after Webex decided says who decided and changes nothing', async () => {
    const { r, shown, decided } = await setUp(true);
    const id = await awaitingApproval(r);
    const request = shown.at(-1)!;
    await decideAs(r, id, 'DENIED', 'bob@example.net', { channel: 'webex' });
    request.fire('action', 0);
    await decided();
    expect(r.incidents.get(id)?.approval).toMatchObject({ decision: 'DENIED', by: 'bob@example.net', channel: 'webex' });
    expect(shown.at(-1)).toMatchObject({ title: `${id}: your decision was not applied`, body: expect.stringMatching(/^Already denied by bob@example\.net via webex at /) });
  });

  it('a terminal outcome notifies with its summary', async () => {
    const { r, shown, opened } = await setUp(false);
    const id = await awaitingApproval(r, 'R2');
    await decideAs(r, id, 'APPROVED', 'oncall-jane');
    r.incidents.transition(id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'Neighbor 10.0.0.2 Established again', at: new Date().toISOString() } }));
    const outcome = shown.at(-1)!;
    expect(outcome).toMatchObject({ title: 'Resolved: R2', subtitle: id, body: '> Neighbor 10.0.0.2 Established again' });
    outcome.fire('click');
    expect(opened).toEqual([id]);
  });
});
