import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { progressLine } from '../../../src/core/incidents/progress-line';
import { mainPath, stepOfCall } from '../../../src/adapters/agent-tools/run-progress';
import { repoRoot } from '../../helpers/opencode';

describe('run progress', () => {
  it('places a device call on the RAW\'s main path, as the device\'s platform words it', async () => {
    const { raw } = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000002');
    const path = mainPath(raw);
    expect(path[0]).toBe('check_device_reachable');
    expect(path.at(-1)).toBe('resolve_neighbor_restored');
    const vars = { device_hostname: 'R1', neighbor_ip: '10.0.0.2' };
    expect(stepOfCall(raw, vars, 'show version')).toEqual({ step: 'check_device_reachable', index: 1, total: path.length });
    expect(stepOfCall(raw, vars, 'show running-config | section router bgp')).toMatchObject({ step: 'collect_bgp_config', index: 3 });
    expect(stepOfCall(raw, { ...vars, device_platform: 'frr' }, 'show running-config bgpd')).toMatchObject({ step: 'collect_bgp_config', index: 3 });
    expect(stepOfCall(raw, vars, ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'])).toMatchObject({ step: 'repair_no_shutdown', index: 5 });
    expect(stepOfCall(raw, vars, 'show clock')).toBeUndefined();
  });

  it('says where a run is and how long it has taken, and how long an approval has left', () => {
    const now = new Date('2026-11-24T10:05:00Z');
    const base = { device_hostname: 'R1', created_at: '2026-11-24T10:02:50Z', approval_request: null };
    expect(progressLine({ ...base, state: 'running', progress: { step: 'collect_bgp_config', index: 3, total: 8, at: '' } }, now)).toBe('R1: step 3/8 collect_bgp_config · 2m 10s elapsed');
    const waiting = { ...base, state: 'awaiting_approval' as const, progress: { step: 'repair_no_shutdown', index: 5, total: 8, at: '' }, approval_request: { expires_at: '2026-11-24T10:33:00Z' } };
    expect(progressLine(waiting as never, now)).toBe('R1: approval 28m left · step 5/8 repair_no_shutdown · 2m 10s elapsed');
  });
});
