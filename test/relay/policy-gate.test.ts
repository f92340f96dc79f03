import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import type { MenuItemConstructorOptions } from 'electron';
import { trayHealthOf } from '../../electron/health-monitor';
import { createTrayController } from '../../electron/tray';
import { createHttpBridge } from '../../renderer/bridge/http-bridge';
import type { DeepHealth } from '../../src/relay/health-checks';

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

/** The shipped policy in a folder of the test's own (so a test may edit it), a relay with a live channel, pinned at `at`. */
async function start(at: string, groups: string[] = ['tier1']) {
  const dir = tempDir('fault-relay-policy-gate-');
  for (const f of ['policy.yaml', 'change-records.yaml', 'maintenance-windows.ics']) copyFileSync(resolve(import.meta.dirname, '../..', f), join(dir, f));
  // One approver, in these groups: whether anyone can meet the rule is part of the verdict.
  const ana = newToken();
  writeFileSync(join(dir, 'operators.yaml'), stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', groups, token_sha256: ana.sha256 }] }));
  const relay: Relay = await relayForTest({
    agent: createStubRuntime(),
    clock: manualClock(at),
    env: { RELAY_TOOLS_TOKEN: 'tok', POLICY_FILE: join(dir, 'policy.yaml'), OPERATORS_FILE: join(dir, 'operators.yaml') },
    extraChannels: () => ['desktop'],
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  open.push(relay, tools);
  const fire = async (over: Record<string, unknown> = {}) => (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002(over)) })).json().incident_id as string;
  const ask = (id: string) => tools.call('request_approval', { incident_id: id, summary: 'The freeze does not apply to this repair; approve it.', device: 'R1', commands: REPAIR });
  return { relay, url, dir, fire, ask, token: ana.token };
}

describe('the change policy, enforced before any card', () => {
  it('a model asking for a change in the freeze gets no card: the run ends escalated, naming the rule', async () => {
    const t = await start('2026-12-20T03:00:00.000Z');
    const id = await t.fire();
    const answer = await t.ask(id);
    expect(answer.json).toMatchObject({ status: 'escalated_by_policy', rule: 'SC-BGP-01 in freeze year-end' });
    const incident = t.relay.incidents.get(id)!;
    expect(incident).toMatchObject({ state: 'escalated', approval_request: null, outcome: { kind: 'escalated' } });
    expect(incident.outcome?.summary).toMatch(/SC-BGP-01 in freeze year-end/);
    expect(t.relay.incidents.timeline(id).map((e) => e.type)).toContain('policy.escalated');
    expect(t.relay.incidents.timeline(id).map((e) => e.type)).not.toContain('approval.requested');
  });

  it('an allowed change is asked as before, with the rule recorded', async () => {
    const t = await start('2026-11-28T12:00:00.000Z');
    const id = await t.fire();
    expect((await t.ask(id)).json).toMatchObject({ status: 'pending' });
    const verdict = t.relay.incidents.timeline(id).find((e) => e.type === 'policy.verdict');
    expect(verdict?.message).toMatch(/SC-BGP-01: 1 approval from tier1, tier2/);
  });

  it('a rule nobody listed can meet is escalated at once, not asked on a card that could only expire', async () => {
    const t = await start('2026-11-28T12:00:00.000Z', ['change-manager']);
    const id = await t.fire();
    expect((await t.ask(id)).json).toMatchObject({ status: 'escalated_by_policy', rule: 'SC-BGP-01', reason: expect.stringMatching(/OPERATORS_FILE lists 0 approver\(s\) in those groups/) });
    expect(t.relay.incidents.get(id)).toMatchObject({ state: 'escalated', approval_request: null });
    expect(t.relay.incidents.timeline(id).map((e) => e.type)).not.toContain('approval.requested');
  });

  it('an edit that does not load keeps the last good policy, and /health, the tray and /ui say so', async () => {
    const t = await start('2026-11-28T12:00:00.000Z');
    const file = join(t.dir, 'policy.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('default: escalate', 'default: maybe'));
    const NOT_LOADED = /change policy was edited but does not load.*default/;
    await vi.waitFor(async () => {
      const health = (await t.relay.app.inject({ url: '/health' })).json<{ warnings: string[] }>();
      expect(health.warnings.join('\n')).toMatch(NOT_LOADED);
    }, { timeout: 15_000, interval: 100 });

    // The tray: /health/deep as the desktop app asks it, through its health monitor's reading, in the tooltip and the menu.
    const deep = (await t.relay.app.inject({ url: '/health/deep', headers: { authorization: `Bearer ${t.token}` } })).json<DeepHealth>();
    const shown = { tooltip: '', menu: [] as MenuItemConstructorOptions[] };
    const tray = createTrayController<string, MenuItemConstructorOptions[]>({
      tray: { setImage: () => {}, setToolTip: (text) => void (shown.tooltip = text), setContextMenu: (m) => void (shown.menu = m ?? []) },
      buildMenu: (template) => template,
      icons: { idle: 'idle', running: 'running', awaiting_approval: 'awaiting', degraded: 'degraded' },
      incidents: () => [],
      pending: () => [],
      extras: () => ({ promptFor: 'x', startAtLogin: false, restartPending: false }),
      actions: { confirmDecision: () => {}, openIncident: () => {}, openDashboard: () => {}, copyHeadedPrompt: () => {}, openSessionLogs: () => {}, setStartAtLogin: () => {}, restartRelay: () => {}, quit: () => {} },
    });
    tray.setHealth(trayHealthOf(deep));
    expect(shown.tooltip).toMatch(/\n⚠ The change policy was edited but does not load/);
    expect(shown.menu.map((i) => i.label)).toContainEqual(expect.stringMatching(/^⚠ The change policy was edited but does not load/));

    // /ui: its standing warnings are what its bridge reads from /health/deep, every one shown on every page.
    const bridge = createHttpBridge({
      baseUrl: t.url,
      fetch: ((input: string, init?: RequestInit) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${t.token}` } })) as typeof fetch,
      EventSource: class {} as unknown as typeof EventSource,
      writeClipboard: async () => {},
    });
    expect((await bridge.health()).warnings).toContainEqual(expect.stringMatching(NOT_LOADED));

    const id = await t.fire();
    expect((await t.ask(id)).json).toMatchObject({ status: 'pending' });
  });
});
