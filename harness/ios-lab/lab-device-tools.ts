import type { Lab } from './lab';
import { labPreview } from './preview';
import type { LabRefusal } from './refusal';
import { DeviceToolError, type ApplyExpect, type DeviceToolName, type DeviceTools } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';

/**
 * A lab refusal as the contract's error. The lab applies a change whole or not at all, so a change
 * it refused left the device as it was (`restored`).
 */
const refused = (tool: DeviceToolName, r: LabRefusal) =>
  new DeviceToolError(tool, r.error, deviceFailure(r.kind, r.kind !== 'not_pending', { restored: tool === 'config_cli' ? true : undefined, detail: r.detail }));

const settle = <T>(tool: DeviceToolName, r: ({ ok: true } & T) | LabRefusal): Promise<T> => (r.ok ? Promise.resolve(r) : Promise.reject(refused(tool, r)));

/** The lab as the DeviceTools port, in process: fast and deterministic for tests and `raw:test`, and what its MCP server registers. */
export function createLabDeviceTools(lab: Lab): DeviceTools {
  const provisional = async (device: string, commands: string[], confirmWithinS: number, opts?: ApplyExpect) => {
    const r = await settle('config_cli', lab.configProvisional(device, commands, confirmWithinS, opts?.expectConfigSha256));
    return { output: r.output, change: r.change };
  };
  return {
    execCli: async (device, command) => (await settle('exec_cli', lab.exec(device, command))).output,
    async configCli(device, commands, opts) {
      if (opts?.confirmWithinS !== undefined) return (await provisional(device, commands, opts.confirmWithinS, opts)).output;
      return (await settle('config_cli', lab.config(device, commands))).output;
    },
    configProvisional: provisional,
    confirmChange: async (device, changeId) => (await settle('confirm_change', lab.confirmChange(device, changeId))).change,
    rollbackChange: async (device, changeId, reason) => (await settle('rollback_change', lab.rollbackChange(device, changeId, reason))).change,
    changeStatus: async (device, changeId) => (await settle('change_status', lab.changeStatus(device, changeId))).change,
    previewConfig: async (device, commands) => (await settle('preview_config', labPreview(lab, device, commands))).preview,
  };
}
