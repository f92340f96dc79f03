import type { DeviceTools } from '../../src/core/changes/device-contract';
import { runRaw, type ApprovalRequest, type RunRawResult } from './engine';
import { cappedClock, countingTools } from './raw-test-frr';
import { compareRun, scriptedApprover, type CaseResult } from './raw-test-runner';
import type { RawTestCase } from '../../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import type { DeviceService } from '../../src/adapters/devices/device-service';
import type { NetconfLab } from '../netconf-lab/lab';
import { LAB_NS } from '../netconf-lab/plan';

/** The one neighbor of the lab's startup configuration (harness/netconf-lab/plan.ts STARTUP_CONFIG). */
const LAB_NEIGHBOR = '10.0.0.2';

/** The lab's state for a case, as a fragment a person could approve: the neighbor shut or not. */
const neighborShut = (shut: boolean) => [
  '<config>',
  `<bgp xmlns="${LAB_NS}">`,
  `<neighbor><address>${LAB_NEIGHBOR}</address><shutdown>${shut}</shutdown></neighbor>`,
  '</bgp>',
  '</config>',
];

/**
 * Sets the lab up for a case through the device service itself (a confirmed commit, confirmed):
 * the neighbor shut exactly when the case's faults say so. The lab's YANG model holds only that,
 * so any other fault cannot be built here and the case says why instead of running.
 */
async function prepare(service: DeviceService, device: string, tc: RawTestCase): Promise<string | undefined> {
  let shut = false;
  for (const fault of tc.lab.faults) {
    if (fault.fault !== 'bgp_neighbor_admin_down' || fault.device !== tc.alert.device_hostname || fault.neighbor !== LAB_NEIGHBOR || fault.vrf) {
      return `the NETCONF lab builds only bgp_neighbor_admin_down of ${tc.alert.device_hostname}'s neighbor ${LAB_NEIGHBOR} (no VRF), not ${JSON.stringify(fault)}`;
    }
    shut = true;
  }
  await settle(service, device, false);
  await service.config(device, neighborShut(shut));
  await service.confirmCommit(device);
  return undefined;
}

/**
 * What the relay does with a change once the run is over: its post-check passed (the run resolved)
 * → confirm; otherwise cancel, so the device is put back. Nothing is left pending between cases.
 */
async function settle(service: DeviceService, device: string, keep: boolean): Promise<void> {
  if (!service.pendingCommit(device)) return;
  await (keep ? service.confirmCommit(device) : service.cancelCommit(device));
}

/**
 * Runs a group's NETCONF-capable cases (`platforms` includes netconf) on the NETCONF lab's device,
 * one after another, through the device service (edit-config on the candidate, validate, confirmed
 * commit, read-back), with `device_platform: netconf` selecting the RAW's variants. The lab's one
 * device answers to the case's device name.
 */
export async function runGroupTestsOnNetconf(group: ArtifactGroup, lab: NetconfLab, service: DeviceService): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const device = lab.node.name;
  for (const { file, testCase: tc } of group.tests) {
    if (!tc.platforms.includes('netconf')) continue;
    const started = performance.now();
    const failures: string[] = [];
    const approvals: ApprovalRequest[] = [];
    const base = { group: group.alert_def_id, name: `${tc.name} [netconf]`, file, expected: tc.expect, approvals };
    const cannot = await prepare(service, device, tc);
    if (cannot) {
      const result: RunRawResult = { outcome: 'failed', summary: cannot, path: [], vars: {}, config_changes: 0 };
      results.push({ ...base, passed: false, failures: [`lab scenario cannot be set up: ${cannot}`], result, wallMs: performance.now() - started });
      continue;
    }
    const counted = countingTools(service);
    const target = (name: string) => (name === tc.alert.device_hostname ? device : name);
    const tools: DeviceTools = {
      ...counted.tools,
      execCli: (name, command) => counted.tools.execCli(target(name), command),
      configCli: (name, commands) => counted.tools.configCli(target(name), commands),
    };
    const result = await runRaw({
      raw: group.raw,
      fs: group.fs,
      vars: { device_hostname: tc.alert.device_hostname, ...tc.alert.alert_vars, device_platform: 'netconf' },
      rawMessage: tc.alert.raw_message,
      tools,
      clock: cappedClock(),
      approve: scriptedApprover(tc, approvals, failures),
    });
    await settle(service, device, result.outcome === 'resolved');
    failures.push(...compareRun(tc, result, counted.changes(), tc.netconf?.summary_contains ?? tc.expect.summary_contains));
    results.push({ ...base, passed: failures.length === 0, failures, result, wallMs: performance.now() - started });
  }
  return results;
}
