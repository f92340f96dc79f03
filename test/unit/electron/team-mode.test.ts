import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createNotifier } from '../../../electron/notifications';
import { createSecretStore } from '../../../electron/secrets';
import { createSettings } from '../../../electron/settings';
import { createTeamClient } from '../../../electron/team-client';
import { createTeamDesktopApi } from '../../../electron/team-desktop-api';
import { teamEventsToBus } from '../../../electron/team-events';
import { createBus } from '../../../src/core/events/bus';
import type { RelayEvents } from '../../../src/core/incidents/events';
import type { Relay } from '../../../src/relay/create-relay';
import { ad000002, silent } from '../../helpers/relay';
import { team, teamRelayForTest } from '../../helpers/team-relay';
import { confStore, fakeNotifications, fakeSafeStorage } from './fakes';

const { ana, vic, secret: SECRET } = team;
const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

async function teamRelay(): Promise<{ relay: Relay; url: string }> {
  const started = await teamRelayForTest();
  stops.push(() => started.relay.close());
  return started;
}

/** The tray in "team relay" mode, wired as main.ts wires it, with fake notifications (macOS buttons). */
function teamTray(url: string, token: string) {
  const bus = createBus<RelayEvents>((error) => {
    throw error;
  });
  const { shown, FakeNotification } = fakeNotifications();
  let notify = () => {};
  const team = createTeamClient({ url, token, onEvent: (e) => (teamEventsToBus(bus, () => {})(e), notify()), onStatus: () => notify() });
  stops.push(() => team.stop());
  const secrets = createSecretStore({ backend: confStore('secrets').conf, safeStorage: fakeSafeStorage(), platform: 'linux', logger: silent });
  const settings = createSettings({ backend: confStore('settings').conf, secrets, baseEnv: { TEAM_RELAY_URL: url } });
  const api = createTeamDesktopApi({ team, settings, clipboard: { writeText: () => {} }, artifactsDir: 'intelligence-artifacts', teamUrl: url });
  // Every notification shown is a moment to look again (a refusal arrives with no stream event).
  class Notifying extends FakeNotification {
    override show() {
      super.show();
      notify();
    }
  }
  const notifier = createNotifier({ Notification: Notifying, supportsActions: true, bus, decide: (c) => api.decide(c.incident_id, c.request_id ?? '', c.decision), user: 'laptop-user', openIncident: () => {}, logger: silent });
  stops.push(async () => notifier.stop());
  const until = (test: () => boolean) => new Promise<void>((resolve) => ((notify = () => test() && resolve()), notify()));
  return { team, api, shown, until };
}

const postAlert = (url: string) =>
  request(`${url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, body: JSON.stringify(ad000002()) }).then((r) => r.body.json() as Promise<{ incident_id: string }>);

describe('the tray in "team relay" mode', () => {
  it('raises the native notification for a team approval, and its Approve decides on the team relay as the engineer', async () => {
    const { relay, url } = await teamRelay();
    const tray = teamTray(url, ana.token);
    await tray.until(() => tray.team.status().connected);
    const { incident_id } = await postAlert(url);
    await relay.approvals.request({ incident_id, summary: 'Remove the shutdown of 10.0.0.2', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    await tray.until(() => tray.shown.some((n) => n.subtitle === incident_id));
    const notification = tray.shown.find((n) => n.subtitle === incident_id)!;
    expect(notification.body).toContain('  no neighbor 10.0.0.2 shutdown');

    notification.fire('action', 0);
    await tray.until(() => relay.incidents.get(incident_id)?.approval !== null);
    // The team relay names the person whose token the tray holds, not the laptop's OS user.
    expect(relay.incidents.get(incident_id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'Ana Ruiz', channel: 'api' });

    // The window's views come from the team relay with the same token.
    expect((await tray.api.getIncident(incident_id)).timeline.map((e) => e.type)).toContain('approval.decided');
    expect((await tray.api.health()).checks).toHaveProperty('agent_runtime');
    expect(await tray.api.listIncidents()).toEqual(expect.arrayContaining([expect.objectContaining({ incident_id })]));
    await expect(tray.api.directPrompt({ alert_def_id: 'AD000002', device: 'R1', mode: 'strict', vars: {} })).rejects.toThrow(`npm run headed -- --api ${url}`);
  });

  it('tells a viewer in the notification that the decision was not applied, and why', async () => {
    const { relay, url } = await teamRelay();
    const tray = teamTray(url, vic.token);
    await tray.until(() => tray.team.status().connected);
    const { incident_id } = await postAlert(url);
    await relay.approvals.request({ incident_id, summary: 'Remove the shutdown', device: 'R1', commands: ['router bgp 65001'] });
    await tray.until(() => tray.shown.some((n) => n.subtitle === incident_id));
    tray.shown.find((n) => n.subtitle === incident_id)!.fire('action', 0);
    await tray.until(() => tray.shown.some((n) => n.title === `${incident_id}: your decision was not applied`));
    expect(tray.shown.find((n) => n.title === `${incident_id}: your decision was not applied`)?.body).toBe('vic@example.net is a viewer: only approvers decide.');
    expect(relay.incidents.get(incident_id)?.approval).toBeNull();
  });
});
