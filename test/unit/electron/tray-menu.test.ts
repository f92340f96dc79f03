import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../../src/relay/create-relay';
import { createTrayController } from '../../../electron/tray';
import { buildTrayMenu, type TrayMenuActions } from '../../../electron/tray-menu';
import { COMMANDS, awaitingApproval, desktopRelay, runningIncident } from './desktop-relay';
import { decideAs } from '../../helpers/decide-as';

type Item = MenuItemConstructorOptions;
const labels = (items: Item[]) => items.filter((i) => i.type !== 'separator').map((i) => i.label);
const click = (item: Item | undefined) => (item?.click as unknown as (i: { checked?: boolean }) => void)(item as { checked?: boolean });

function recordingActions() {
  const calls: string[] = [];
  const actions: TrayMenuActions = {
    confirmDecision: (id, d) => calls.push(`confirm ${id} ${d}`),
    openIncident: (id) => calls.push(`open ${id}`),
    openDashboard: () => calls.push('dashboard'),
    copyHeadedPrompt: () => calls.push('copy'),
    openSessionLogs: () => calls.push('logs'),
    setStartAtLogin: (on) => calls.push(`login ${on}`),
    restartRelay: () => calls.push('restart'),
    quit: () => calls.push('quit'),
  };
  return { calls, actions };
}

const model = { status: { state: 'idle' as const, line: 'Idle: no active incidents', warnings: [] as string[], progress: [] as string[] }, pending: [], promptFor: 'sample AD000002 on R1', startAtLogin: false, restartPending: false };

describe('tray menu model', () => {
  it('has the status line, then the fixed items in order', () => {
    const { actions } = recordingActions();
    expect(labels(buildTrayMenu(model, actions))).toEqual([
      'Idle: no active incidents',
      'Open dashboard',
      'Copy headed-mode prompt (sample AD000002 on R1)',
      'Open session logs',
      'Start at login',
      'Quit Fault Relay',
    ]);
    expect(buildTrayMenu(model, actions)[0]).toMatchObject({ enabled: false });
  });

  it('shows each run\'s progress under the status line', () => {
    const { actions } = recordingActions();
    const menu = buildTrayMenu({ ...model, status: { ...model.status, progress: ['R1: step 3/8 collect_bgp_config · 1m elapsed'] } }, actions);
    expect(labels(menu).slice(0, 2)).toEqual(['Idle: no active incidents', 'R1: step 3/8 collect_bgp_config · 1m elapsed']);
    expect(menu[1]).toMatchObject({ enabled: false });
  });

  it('lists each pending approval with its commands, Approve… and Deny…', () => {
    const { calls, actions } = recordingActions();
    const menu = buildTrayMenu({ ...model, pending: [{ incidentId: 'INC-1', device: 'R1', summary: 'Re-enable the neighbor', commands: COMMANDS }] }, actions);
    const approval = menu.find((i) => i.label === 'R1: Re-enable the neighbor');
    const sub = approval?.submenu as Item[];
    expect(labels(sub)).toEqual(['INC-1', ...COMMANDS, 'Approve…', 'Deny…', 'Show in dashboard']);
    click(sub.find((i) => i.label === 'Approve…'));
    click(sub.find((i) => i.label === 'Deny…'));
    click(sub.find((i) => i.label === 'Show in dashboard'));
    expect(calls).toEqual(['confirm INC-1 APPROVED', 'confirm INC-1 DENIED', 'open INC-1']);
  });

  it('toggles start at login, and offers a restart only when saved settings wait for one', () => {
    const { calls, actions } = recordingActions();
    const menu = buildTrayMenu({ ...model, startAtLogin: true, restartPending: true }, actions);
    const login = menu.find((i) => i.label === 'Start at login');
    expect(login).toMatchObject({ type: 'checkbox', checked: true });
    click({ ...login, checked: false });
    click(menu.find((i) => i.label === 'Restart relay to apply settings'));
    click(menu.find((i) => i.label === 'Quit Fault Relay'));
    expect(calls).toEqual(['login false', 'restart', 'quit']);
  });
});

describe('tray controller on a real relay', () => {
  let relay: Relay | undefined;
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  function fakeTray() {
    const images: string[] = [];
    let menu: Item[] = [];
    let tooltip = '';
    return {
      images,
      menu: () => menu,
      tooltip: () => tooltip,
      tray: { setImage: (i: string) => void images.push(i), setToolTip: (t: string) => void (tooltip = t), setContextMenu: (m: Item[] | null) => void (menu = m ?? []) },
    };
  }

  it('follows the incidents: idle, running, awaiting approval with the approval in the menu, degraded', async () => {
    relay = await desktopRelay();
    const r = relay;
    const fake = fakeTray();
    const { actions } = recordingActions();
    const controller = createTrayController({
      tray: fake.tray,
      buildMenu: (t) => t,
      icons: { idle: 'idle.png', running: 'running.png', awaiting_approval: 'awaiting.png', degraded: 'degraded.png' },
      incidents: () => r.incidents.open(),
      pending: () => r.approvals.pending(),
      extras: () => ({ promptFor: 'x', startAtLogin: false, restartPending: false }),
      actions,
    });
    const off = controller.watch(r.bus);
    controller.setHealth({ ok: true });
    expect(fake.images.at(-1)).toBe('idle.png');

    await runningIncident(r, 'R7');
    expect(fake.images.at(-1)).toBe('running.png');
    expect(fake.tooltip()).toMatch(/^Fault Relay: 1 run in progress\nR7: (\d+m )?\d+s elapsed$/);

    const id = await awaitingApproval(r, 'R1');
    expect(fake.images.at(-1)).toBe('awaiting.png');
    expect(labels(fake.menu())).toContain('R1: Re-enable the BGP neighbor');
    // The pending approval's countdown, in the tooltip and under the status line.
    expect(fake.tooltip()).toMatch(/\nR1: approval \d+m( \d+s)? left · (\d+m )?\d+s elapsed/);
    expect(labels(fake.menu())[1]).toMatch(/^R1: approval \d+m( \d+s)? left/);

    await decideAs(r, id, 'DENIED', 'alice');
    expect(fake.images.at(-1)).toBe('running.png');
    expect(labels(fake.menu())).not.toContain('R1: Re-enable the BGP neighbor');

    controller.setHealth({ ok: false, problem: 'agent runtime: connect ECONNREFUSED' });
    expect(fake.images.at(-1)).toBe('degraded.png');
    expect(fake.menu()[0]?.label).toBe('Degraded: agent runtime: connect ECONNREFUSED');
    off();
  });
});
