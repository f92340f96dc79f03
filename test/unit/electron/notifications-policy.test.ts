import { afterEach, describe, expect, it } from 'vitest';
import { toDecideOutcome } from '../../../electron/desktop-api';
import { createNotifier } from '../../../electron/notifications';
import type { Relay } from '../../../src/relay/create-relay';
import { people, policyPeopleEnv, TWO_PERSON_RULE } from '../../helpers/policy-people';
import { silent } from '../../helpers/relay';
import { manualClock } from '../incidents/in-memory-incidents';
import { awaitingApproval, desktopRelay } from './desktop-relay';
import { fakeNotifications } from './fakes';

describe('native notifications under a two-person policy rule', () => {
  let relay: Relay | undefined;
  let stop: (() => void) | undefined;
  afterEach(async () => {
    stop?.();
    await relay?.close();
    relay = undefined;
  });

  /** The tray of OS account `user`, deciding through the relay's one decide (as electron/main.ts does). */
  async function tray(user: string) {
    relay = await desktopRelay(policyPeopleEnv(), manualClock('2026-11-28T12:00:00.000Z'));
    const r = relay;
    const { shown, FakeNotification } = fakeNotifications();
    stop = createNotifier({
      Notification: FakeNotification,
      supportsActions: true,
      bus: r.bus,
      decide: async (command) => toDecideOutcome(await r.decide(command)),
      user,
      openIncident: () => {},
      isSupported: () => true,
      onNotificationFailed: () => {},
      logger: silent,
    }).stop;
    return { r, shown };
  }

  it('the request shows the rule; Approve by the os_user\'s person is counted 1 of 2 and the request stays pending', async () => {
    const { r, shown } = await tray(people.ana.os_user);
    const id = await awaitingApproval(r, 'R1');
    expect(shown.at(-1)!.body).toContain(`policy ${TWO_PERSON_RULE}: 2 approvals from change-manager, tier2 — none given yet`);
    shown.at(-1)!.fire('action', 0);
    await expect.poll(() => shown.at(-1)!.title).toBe(`${id}: approval counted`);
    expect(shown.at(-1)!.body).toContain('recorded: 1 of 2');
    expect(r.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null });
  });

  it('an OS account nobody is mapped to is told the rule does not count it; nothing changes', async () => {
    const { r, shown } = await tray('root');
    const id = await awaitingApproval(r, 'R1');
    shown.at(-1)!.fire('action', 0);
    await expect.poll(() => shown.at(-1)!.title).toBe(`${id}: your decision was not applied`);
    expect(shown.at(-1)!.body).toMatch(new RegExp(`${TWO_PERSON_RULE} counts approvals only from change-manager, tier2`));
    expect(r.incidents.get(id)?.approval_request?.votes ?? []).toEqual([]);
  });
});
