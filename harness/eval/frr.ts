import path from 'node:path';
import { requestedLines } from './case-run';
import { inventoryAddressBook } from '../../src/adapters/devices/inventory-lookup';
import { DeviceToolError } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';
import { runRaw } from '../raw-tests/engine';
import { realTimeClock } from '../raw-tests/clock';
import type { RawTestCase } from '../../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import { DeviceError } from '../../src/adapters/devices/errors';
import { startDeviceServer, type RunningDeviceServer } from '../../src/adapters/devices/server';
import { applyFrrFault, resetFrrLab } from '../frr-lab/faults';
import { frrLabUnavailable } from '../frr-lab/host';
import { startFrrLab, type FrrLab } from '../frr-lab/lab';

/** Real FRR routers for the eval: the lab, the SSH device server the relay's guard calls, and a read-only service for the RAW's reference lines. */
export interface EvalFrr {
  lab: FrrLab;
  devices: RunningDeviceServer;
  /** Why the case cannot be built on FRR, or undefined once its faults are real configuration. */
  prepare(tc: RawTestCase): Promise<string | undefined>;
  /** The RAW's repair lines on these routers, by the RAW engine, answered DENIED so nothing changes. */
  rawLines(group: ArtifactGroup, tc: RawTestCase): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startEvalFrr(dataDir: string): Promise<EvalFrr> {
  const missing = frrLabUnavailable();
  if (missing) throw new Error(missing);
  const lab = await startFrrLab({ dir: path.join(dataDir, 'frr-lab'), routers: 2 });
  let devices: RunningDeviceServer;
  try {
    devices = await startDeviceServer({ inventoryPath: lab.inventoryPath, port: 0 });
  } catch (error) {
    await lab.stop();
    throw error;
  }
  return {
    lab,
    devices,
    prepare: (tc) => prepare(lab, tc),
    async rawLines(group, tc) {
      const lines: string[][] = [];
      await runRaw({
        raw: group.raw,
        fs: group.fs,
        vars: { device_hostname: tc.alert.device_hostname, ...tc.alert.alert_vars, device_platform: 'frr' },
        rawMessage: tc.alert.raw_message,
        addressBook: inventoryAddressBook(lab.inventoryPath),
        tools: {
          execCli: (device, command) =>
            devices.service.exec(device, command).catch((error: unknown) => {
              // The RAW's on_error branches take the tool's error, as they do in `raw:test --frr`.
              throw error instanceof DeviceError ? new DeviceToolError('exec_cli', error.message, error.failure) : error;
            }),
          configCli: readOnly,
          configProvisional: readOnly,
          confirmChange: readOnly,
          rollbackChange: readOnly,
          changeStatus: readOnly,
          previewConfig: readOnly,
        },
        clock: { ...realTimeClock(), sleep: () => Promise.resolve() },
        approve: (req) => {
          lines.push(requestedLines(req));
          return Promise.resolve('DENIED');
        },
      }).catch(() => undefined);
      return lines[0] ?? [];
    },
    async stop() {
      await devices.stop();
      await lab.stop();
    },
  };
}

/** The reference run only reads: it is answered DENIED, so no change call is ever due. */
const readOnly = () => Promise.reject(new DeviceToolError('config_cli', 'the eval reads the RAW lines only', deviceFailure('unsupported', false)));

/** Every session back up, then the case's faults as real configuration (the FRR lab's own fault builders). */
async function prepare(lab: FrrLab, tc: RawTestCase): Promise<string | undefined> {
  if (tc.lab.inventory) return 'the case names its own inventory; the FRR lab has its own';
  await resetFrrLab(lab);
  for (const fault of tc.lab.faults) {
    const cannot = await applyFrrFault(lab, fault);
    if (cannot) return cannot;
  }
  return undefined;
}
