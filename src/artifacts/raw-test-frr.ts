import { systemClock, type Clock } from './clock';
import { DeviceToolError, type DeviceTools } from './device-tools';
import { runRaw, type ApprovalRequest, type RunRawResult } from './engine';
import { compareRun, scriptedApprover, type CaseResult } from './raw-test-runner';
import type { RawTestCase } from './schema-test-case';
import type { ArtifactGroup } from './validate';
import type { DeviceService } from '../devices/device-service';
import { DeviceError } from '../devices/errors';
import { waitForEstablished, waitForSession } from '../frr-lab/bgp-state';
import type { FrrLab } from '../frr-lab/lab';

/** Real routers answer in seconds, not the RAW's 10 s budget: waits are capped, retries still poll. */
const MAX_WAIT_MS = 1_000;

function cappedClock(): Clock {
  const real = systemClock();
  return { ...real, sleep: (ms) => real.sleep(Math.min(ms, MAX_WAIT_MS)) };
}

/** The device tools over the SSH device service, counting the changes that reached a router. */
function countingTools(service: DeviceService) {
  let changes = 0;
  const wrap = async (tool: 'exec_cli' | 'config_cli', work: () => Promise<string>) => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof DeviceError ? new DeviceToolError(tool, error.message, error.reached) : error;
    }
  };
  const tools: DeviceTools = {
    execCli: (device, command) => wrap('exec_cli', () => service.exec(device, command)),
    configCli: (device, commands) =>
      wrap('config_cli', async () => {
        const out = await service.config(device, commands);
        changes += 1;
        return out;
      }),
  };
  return { tools, changes: () => changes };
}

/** Puts every session back up, then builds the case's faults as real configuration. */
async function prepare(lab: FrrLab, tc: RawTestCase): Promise<string | undefined> {
  for (const r of lab.routers) {
    const lines = r.links.map((l) => `no neighbor ${l.peerAddress} shutdown`);
    await lab.vtysh(r.name, 'configure terminal', `router bgp ${r.as}`, ...lines, 'end');
    if (r.vrf) await lab.vtysh(r.name, 'configure terminal', `router bgp ${r.as} vrf ${r.vrf.name}`, `no neighbor ${r.vrf.peerAddress} shutdown`, 'end');
  }
  await waitForEstablished(lab.routers, lab.vtysh);
  for (const fault of tc.lab.faults) {
    if (fault.fault !== 'bgp_neighbor_admin_down') return `fault ${fault.fault} has no FRR form in this lab`;
    const router = lab.routers.find((r) => r.name === fault.device);
    if (!router) return `no router ${fault.device} in the FRR lab`;
    if (fault.vrf && fault.vrf !== router.vrf?.name) return `the FRR lab has no VRF ${fault.vrf} on ${router.name}`;
    const context = fault.vrf ? `router bgp ${router.as} vrf ${fault.vrf}` : `router bgp ${router.as}`;
    await lab.vtysh(router.name, 'configure terminal', context, `neighbor ${fault.neighbor} shutdown`, 'end');
    // FRR passes through "Clearing" for a moment; the scenario is the settled fault, as an alert would find it.
    await waitForSession(lab.vtysh, router.name, fault.neighbor, (state) => state.startsWith('Idle'), 30_000, fault.vrf);
  }
  return undefined;
}

/**
 * Runs a group's FRR-capable cases (`platforms` includes frr) on real routers, one after another on
 * the same lab, through the SSH device service, with `device_platform: frr` selecting the RAW's variants.
 */
export async function runGroupTestsOnFrr(group: ArtifactGroup, lab: FrrLab, service: DeviceService): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const { file, testCase: tc } of group.tests) {
    if (!tc.platforms.includes('frr')) continue;
    const started = performance.now();
    const failures: string[] = [];
    const approvals: ApprovalRequest[] = [];
    const base = { group: group.alert_def_id, name: `${tc.name} [frr]`, file, expected: tc.expect, approvals };
    const cannot = await prepare(lab, tc);
    if (cannot) {
      const result: RunRawResult = { outcome: 'failed', summary: cannot, path: [], vars: {}, config_changes: 0 };
      results.push({ ...base, passed: false, failures: [`lab scenario cannot be set up: ${cannot}`], result, wallMs: performance.now() - started });
      continue;
    }
    const counted = countingTools(service);
    const result = await runRaw({
      raw: group.raw,
      fs: group.fs,
      vars: { device_hostname: tc.alert.device_hostname, ...tc.alert.alert_vars, device_platform: 'frr' },
      rawMessage: tc.alert.raw_message,
      tools: counted.tools,
      clock: cappedClock(),
      approve: scriptedApprover(tc, approvals, failures),
    });
    failures.push(...compareRun(tc, result, counted.changes(), tc.frr?.summary_contains ?? tc.expect.summary_contains));
    results.push({ ...base, passed: failures.length === 0, failures, result, wallMs: performance.now() - started });
  }
  return results;
}
