import { realTimeClock, type SleepingClock } from './clock';
import { DeviceToolError, type DeviceTools, WITHOUT_PROVISIONAL } from '../../src/core/changes/device-contract';
import { runRaw, type ApprovalRequest, type RunRawResult } from './engine';
import { compareRun, scriptedApprover, type CaseResult } from './raw-test-runner';
import { forFrr, type RawTestCase } from '../../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import type { DeviceService } from '../../src/adapters/devices/device-service';
import { DeviceError } from '../../src/adapters/devices/errors';
import { inventoryAddressBook } from '../../src/adapters/devices/inventory-lookup';
import { applyFrrFault, resetFrrLab } from '../frr-lab/faults';
import type { FrrLab } from '../frr-lab/lab';

/** Real routers answer in seconds, not the RAW's 10 s budget: waits are capped, retries still poll. */
const MAX_WAIT_MS = 1_000;

export function cappedClock(): SleepingClock {
  const real = realTimeClock();
  return { ...real, sleep: (ms) => real.sleep(Math.min(ms, MAX_WAIT_MS)) };
}

/** The device tools over the SSH device service, counting the changes that reached a router. */
export function countingTools(service: DeviceService) {
  let changes = 0;
  const wrap = async (tool: 'exec_cli' | 'config_cli', work: () => Promise<string>) => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof DeviceError ? new DeviceToolError(tool, error.message, error.failure) : error;
    }
  };
  const tools: DeviceTools = { ...WITHOUT_PROVISIONAL,
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

/** Puts every session back up, then builds the case's faults as real configuration (harness/frr-lab/faults.ts). */
async function prepare(lab: FrrLab, tc: RawTestCase): Promise<string | undefined> {
  await resetFrrLab(lab);
  for (const fault of tc.lab.faults) {
    const cannot = await applyFrrFault(lab, fault);
    if (cannot) return cannot;
  }
  return undefined;
}

/**
 * Runs a group's FRR-capable cases (`platforms` includes frr) on real routers, one after another on
 * the same lab, through the SSH device service, with `device_platform: frr` selecting the RAW's variants.
 */
export async function runGroupTestsOnFrr(group: ArtifactGroup, lab: FrrLab, service: DeviceService): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const { file, testCase } of group.tests) {
    if (!testCase.platforms.includes('frr')) continue;
    const tc = forFrr(testCase);
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
      addressBook: inventoryAddressBook(lab.inventoryPath),
      clock: cappedClock(),
      approve: scriptedApprover(tc, approvals, failures),
    });
    failures.push(...compareRun(tc, result, counted.changes(), tc.frr?.summary_contains ?? tc.expect.summary_contains));
    results.push({ ...base, passed: failures.length === 0, failures, result, wallMs: performance.now() - started });
  }
  return results;
}
