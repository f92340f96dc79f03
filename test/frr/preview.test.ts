import { afterAll, describe, expect, it } from 'vitest';
import { createMcpDeviceTools, type McpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { terminalQuestion } from '../../src/core/approvals/terminal-question';
import type { AdaptiveCard } from '../../src/adapters/channels/webex/schemas';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { NO_FRR } from './frr-available';
import { frrLabForFile } from './lab-for-test';
import { deviceContractSuite } from '../helpers/device-contract-suite';
import { parseRunningConfig } from '../../src/adapters/devices/config-diff';

/**
 * The preview on real FRR 8.4 routers through the SSH device tool server: FRR has no dry run on the
 * router that does not apply, so the server checks the lines itself and with FRR's own parser (vtysh
 * --dryrun on its host) and predicts the diff from the live running configuration. Reading it must
 * never change the router.
 */
let lab: FrrLab;
let server: RunningDeviceServer;
let tools: McpDeviceTools;

frrLabForFile({ name: 'frr-preview', deviceServer: {} }, (shared) => {
  lab = shared.lab;
  server = shared.server!;
  tools = createMcpDeviceTools(server.mcpUrl, { token: server.token });
});
afterAll(async () => {
  await tools?.close();
});

const runningBgp = () => lab.vtysh('R1', 'show running-config bgpd');

describe.skipIf(NO_FRR)('preview_config on real FRR routers (parser-checked, predicted)', () => {
  it('predicts that `no neighbor X shutdown` removes the shutdown line under router bgp, and leaves the router as it was', async () => {
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
    const before = await runningBgp();
    expect(before).toMatch(/^ neighbor 10\.0\.0\.2 shutdown$/m);

    const preview = await tools.previewConfig('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown']);
    expect(preview).toEqual({
      device: 'R1',
      accepted: true,
      method: 'parser_checked',
      added: [],
      removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'],
      problems: [],
      rollback: { method: 'restore', lines: ['router bgp 65001', ' neighbor 10.0.0.2 shutdown'] },
      fingerprint: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'running-config' },
    });

    const added = await tools.previewConfig('R1', ['router bgp 65001', 'neighbor 10.0.0.2 description to-R2', 'no neighbor 10.0.0.2 shutdown']);
    expect(added).toMatchObject({ accepted: true, added: ['router bgp 65001 > neighbor 10.0.0.2 description to-R2'], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'] });

    // Read-only: the running configuration is exactly as before both previews.
    expect(await runningBgp()).toBe(before);
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end');
  });

  /**
   * The preview against what FRR really does: the same lines applied on the router, the running
   * configuration read before and after; then the rollback the preview showed is applied and must
   * bring the router back exactly.
   */
  const show = (p: string[]) => p.join(' > ');
  const running = () => lab.vtysh('R1', 'show running-config');
  const realDiff = (before: string, after: string) => {
    const [b, a] = [parseRunningConfig(before).map(show), parseRunningConfig(after).map(show)];
    return { added: a.filter((l) => !b.includes(l)), removed: b.filter((l) => !a.includes(l)) };
  };
  /** The rollback as shown (each line indented under its parents), applied as the server applies groups: from the top. */
  const applyShown = async (shown: string[]) => {
    const parents: Array<{ depth: number; line: string }> = [];
    for (const raw of shown) {
      const depth = raw.length - raw.trimStart().length;
      while (parents.length && parents[parents.length - 1]!.depth >= depth) parents.pop();
      await lab.vtysh('R1', 'configure terminal', ...parents.map((p) => p.line), raw.trim(), 'end');
      parents.push({ depth, line: raw.trim() });
    }
  };
  const truePreview = async (lines: string[]) => {
    const before = await running();
    const preview = await tools.previewConfig('R1', lines);
    expect(await running()).toBe(before);
    expect(preview).toMatchObject({ accepted: true, method: 'parser_checked', rollback: { method: 'restore' } });
    await lab.vtysh('R1', 'configure terminal', ...lines, 'end');
    const after = await running();
    expect({ added: preview.added, removed: preview.removed }).toEqual(realDiff(before, after));
    await applyShown(preview.rollback!.lines);
    expect(realDiff(before, await running())).toEqual({ added: [], removed: [] });
    return preview;
  };

  it('`no neighbor X` shows every line of the neighbor it deletes, its address-family lines too, as FRR really removes them; its rollback puts them back', async () => {
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 12', 'end');
    try {
      const preview = await truePreview(['router bgp 65001', 'no neighbor 10.0.0.2']);
      expect(preview.removed).toEqual([
        'router bgp 65001 > neighbor 10.0.0.2 remote-as 65002',
        'router bgp 65001 > neighbor 10.0.0.2 timers connect 1',
        'router bgp 65001 > address-family ipv4 unicast > neighbor 10.0.0.2 maximum-prefix 12',
      ]);
    } finally {
      await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'address-family ipv4 unicast', 'no neighbor 10.0.0.2 maximum-prefix 12', 'end');
    }
  });

  it('`no router bgp 65001` shows the whole default instance and leaves the VRF instance out, as FRR does', async () => {
    const preview = await truePreview(['no router bgp 65001']);
    expect(preview.removed).toContain('router bgp 65001 > neighbor 10.0.0.2 remote-as 65002');
    expect(preview.removed.filter((l) => l.includes('vrf CUST-A'))).toEqual([]);
  });

  it('`no interface X`: the whole block of an interface the system no longer has; refused, read from the device, for one it still has (FRR keeps it)', async () => {
    await lab.vtysh('R1', 'configure terminal', 'interface eth-gone', 'description left over', 'end');
    const gone = await truePreview(['no interface eth-gone']);
    expect(gone.removed).toEqual(['interface eth-gone', 'interface eth-gone > description left over']);
    await lab.vtysh('R1', 'configure terminal', 'no interface eth-gone', 'end');

    const before = await running();
    const present = await tools.previewConfig('R1', ['no interface eth-R2']);
    expect(present).toMatchObject({ accepted: false, problems: [expect.stringMatching(/^line 1 "no interface eth-R2": eth-R2 is present on R1 \(show interface eth-R2\), and FRR deletes only an interface the system no longer has/)] });
    expect(await running()).toBe(before);
  });

  it('`default interface X` is not FRR: refused by its parser, naming the line, nothing changed', async () => {
    const before = await running();
    const preview = await tools.previewConfig('R1', ['default interface eth-R2']);
    expect(preview).toMatchObject({ accepted: false, problems: [expect.stringMatching(/^line 1 "default interface eth-R2": FRR's parser says % Unknown command/)] });
    expect(await running()).toBe(before);
  });

  it("refuses a line FRR's own parser does not take (a typo, a value out of range), naming it, and changes nothing", async () => {
    const before = await runningBgp();
    const typo = await tools.previewConfig('R1', ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefx 120', 'end']);
    expect(typo).toMatchObject({ device: 'R1', accepted: false, method: 'parser_checked', added: [], removed: [] });
    expect(typo.problems).toEqual([expect.stringMatching(/^line 3 "neighbor 10\.0\.0\.2 maximum-prefx 120": FRR's parser says % Unknown command/)]);
    const range = await tools.previewConfig('R1', ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 12000000000000', 'end']);
    expect(range).toMatchObject({ accepted: false, problems: [expect.stringMatching(/^line 3 /)] });
    expect(await runningBgp()).toBe(before);
  });

  it('refuses lines the server would never send, naming the line, before reading anything', async () => {
    const before = await runningBgp();
    const control = await tools.previewConfig('R1', ['router bgp 65001', 'do write memory']);
    expect(control).toMatchObject({ device: 'R1', accepted: false, method: 'predicted', added: [], removed: [] });
    expect(control.problems.join()).toMatch(/"do write memory" is not a configuration line/);

    const pipe = await tools.previewConfig('R1', ['router bgp 65001', 'neighbor 10.0.0.2 description a | section b']);
    expect(pipe).toMatchObject({ accepted: false, problems: [expect.stringMatching(/line 2 .*FRR has no "\| section"/i)] });
    expect(await runningBgp()).toBe(before);
  });

  it('through the relay: request_approval carries the preview to the card, and a refused one is never asked', async () => {
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
    const cards: AdaptiveCard[] = [];
    const room = { postMarkdown: async () => undefined, postCard: async (card: AdaptiveCard) => (cards.push(card), { id: `card-${cards.length}` }) };
    const relay = await relayForTest({ agent: createStubRuntime(), env: { DEVICE_MCP_URL: server.mcpUrl, DEVICE_MCP_TOKEN: server.token, RELAY_TOOLS_TOKEN: 'frr-tools' }, room });
    try {
      const url = await relay.listen({ port: 0, host: '127.0.0.1' });
      const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) })).json().incident_id as string;
      const agentTools = await connectMcp(`${url}/mcp`, 'frr-tools');
      // The agent proposes a rollback that keeps the change and shuts the peer twice: nobody is shown it as the rollback.
      const claim = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'neighbor 10.0.0.2 shutdown', 'neighbor 10.0.0.2 shutdown'];
      const ask = (commands: string[]) => agentTools.call('request_approval', { incident_id: id, summary: 'bring 10.0.0.2 back', device: 'R1', commands, rollback: claim });
      const before = await runningBgp();

      const refused = await ask(['router bgp 65001', 'do write memory']);
      expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/NOT sent for approval: .*"do write memory" is not a configuration line/) });
      expect(relay.incidents.get(id)?.approval_request ?? null).toBeNull();
      expect(cards).toEqual([]);

      expect((await ask(['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'])).json).toMatchObject({ status: 'pending' });
      const line = '- router bgp 65001 > neighbor 10.0.0.2 shutdown';
      expect(JSON.stringify(cards[0]!.body)).toContain(line);
      const question = terminalQuestion(relay.incidents.get(id)!);
      expect(question).toContain(`Would change (checked by FRR's own parser, predicted from the live running configuration):\n    ${line}`);
      // The rollback shown is the relay's, from the configuration it read: the shutdown line put back, once.
      const relayRollback = ['Rollback (computed by the relay from the configuration before):', '  Unless the change is confirmed, the relay applies these lines, then reads the configuration back to check:', '    router bgp 65001', '     neighbor 10.0.0.2 shutdown'];
      expect(question).toContain(relayRollback.join('\n'));
      const card = JSON.stringify(cards[0]!.body);
      expect(card).toContain('Rollback (computed by the relay from the configuration before)');
      expect(card).toContain('"text":"\u00a0neighbor 10.0.0.2 shutdown"');
      expect(card).not.toContain('"text":"neighbor 10.0.0.2 shutdown"');
      expect(question.split('\n').filter((l) => l.trim() === 'neighbor 10.0.0.2 shutdown')).toHaveLength(1);
      expect(await runningBgp()).toBe(before);
      await agentTools.close();
    } finally {
      await relay.close();
      await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end');
    }
  });
});

// The device server's CLI driver on real FRR keeps the device-tool contract, over MCP (the same cases as the lab's and NETCONF's).
deviceContractSuite(
  'real FRR through the device server',
  () => ({
    tools,
    device: 'R1',
    show: { command: 'show bgp summary', holds: '10.0.0.2' },
    change: ['router bgp 65001', 'neighbor 10.0.0.2 description contract-suite'],
    marker: 'contract-suite',
    undo: ['router bgp 65001', 'no neighbor 10.0.0.2 description'],
    refused: ['router bgp 65001', 'neighbor 10.0.0.2 no-such-keyword'],
  }),
  { skip: NO_FRR, timeoutMs: 120_000 },
);
