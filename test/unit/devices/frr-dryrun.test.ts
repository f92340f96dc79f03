import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { frrParserCheck } from '../../../src/adapters/devices/frr-dryrun';

const hasVtysh = (() => {
  try {
    execFileSync('vtysh', ['--help'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe("FRR's own parser on a change's lines (vtysh --dryrun)", () => {
  it('gives no verdict where the host has no vtysh: the preview stays predicted', async () => {
    expect(await frrParserCheck(['router bgp 65001'], '/nonexistent/vtysh')).toBeUndefined();
  });

  it.skipIf(!hasVtysh)('takes the lines an operator types (configure terminal, end) and names each line it refuses, by its place in the change', async () => {
    expect(await frrParserCheck(['configure terminal', 'router bgp 65001', ' neighbor 10.0.0.2 remote-as 65002', 'end'])).toEqual({ problems: [] });
    const bad = await frrParserCheck(['configure terminal', 'router bgp 65001', ' neighbor 10.0.0.2 remote-ass 65002', 'interface eth-R2', ' no ip ospf passive', 'end']);
    expect(bad).toEqual({ problems: [expect.stringMatching(/^line 3 "neighbor 10\.0\.0\.2 remote-ass 65002": FRR's parser says % Unknown command/)] });
  });
});
