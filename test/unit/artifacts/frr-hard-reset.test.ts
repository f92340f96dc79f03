import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../harness/raw-tests/clock';
import { WITHOUT_PROVISIONAL, type DeviceTools } from '../../../src/core/changes/device-contract';
import { runRaw } from '../../../harness/raw-tests/engine';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { repoRoot } from '../../helpers/opencode';

/**
 * R1's answers captured on the FRR lab (FRR 8.4.4) with `neighbor 10.0.0.2 remote-as 65020` while R2 is
 * AS 65002 (test/fixtures/frr/). Once a session has negotiated RFC 8538's notification bit, FRR marks the
 * same rejection "Hard Reset" in its last-reset line ("… Bad Peer AS/Hard Reset)"): seen on the lab under
 * load, where it made the RAW escalate a real remote-as fault as a different one.
 */
const fixture = (name: string) => readFileSync(join(repoRoot, 'test/fixtures/frr', name), 'utf8');
const NEIGHBOR = fixture('ad000006-r1-neighbor.txt');
const answers = (neighbor: string): Record<string, string> => ({
  'show version': fixture('ad000006-r1-version.txt'),
  'show ip bgp neighbors 10.0.0.2': neighbor,
  'show running-config bgpd': fixture('ad000006-r1-running-bgpd.txt'),
});

async function runOn(neighbor: string) {
  const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000006');
  const out = answers(neighbor);
  const tools: DeviceTools = { ...WITHOUT_PROVISIONAL,
    execCli: async (_device, command) => {
      if (!(command in out)) throw new Error(`no captured answer for ${command}`);
      return out[command]!;
    },
    configCli: async () => { throw new Error('nothing is applied in this test'); },
  };
  return runRaw({ raw: group.raw, fs: group.fs, vars: { device_hostname: 'R1', neighbor_ip: '10.0.0.2', peer_as: '65002', device_platform: 'frr' }, tools, clock: createVirtualClock(), approve: async () => 'DENIED' });
}

describe('AD000006 on FRR: the rejected OPEN, marked Hard Reset or not', () => {
  it('takes both forms of the last reset as the fault, and asks for the same change', async () => {
    const hard = NEIGHBOR.replace('Notification sent (OPEN Message Error/Bad Peer AS)', 'Notification sent (OPEN Message Error/Bad Peer AS/Hard Reset)');
    expect(hard).not.toBe(NEIGHBOR);
    for (const neighbor of [NEIGHBOR, hard]) {
      const result = await runOn(neighbor);
      expect(result.path.map((p) => p.step)).toEqual(['check_device_reachable', 'validate_neighbor_state', 'collect_bgp_config', 'repair_set_remote_as', 'escalate_denied']);
      expect(result.vars).toMatchObject({ configured_as: '65020', local_as: '65001', open_as_hex: 'FDEA' });
    }
  });

  it('still escalates a session reset for another reason', async () => {
    const other = NEIGHBOR.replace('Notification sent (OPEN Message Error/Bad Peer AS)', 'Notification sent (Hold Timer Expired)');
    expect((await runOn(other)).path.map((p) => p.step)).toEqual(['check_device_reachable', 'validate_neighbor_state', 'escalate_different_fault']);
  });
});
