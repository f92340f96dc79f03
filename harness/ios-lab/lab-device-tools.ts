import type { Lab } from './lab';
import { labPreview } from './preview';
import { DeviceToolError, settled, type ApplyExpect, type DeviceTools } from '../../src/core/changes/device-contract';

/** Over the lab object, in process: fast and deterministic for tests and `raw:test`. */
export function createLabDeviceTools(lab: Lab): DeviceTools {
  const provisional = (device: string, commands: string[], confirmWithinS: number, opts?: ApplyExpect) => {
    const r = lab.configProvisional(device, commands, confirmWithinS, opts?.expectConfigSha256);
    return r.ok ? Promise.resolve({ output: r.output, change: r.change }) : Promise.reject(new DeviceToolError('config_cli', r.error, true, r.detail));
  };
  return {
    execCli(device, command) {
      const r = lab.exec(device, command);
      return r.ok ? Promise.resolve(r.output) : Promise.reject(new DeviceToolError('exec_cli', r.error));
    },
    configCli(device, commands, opts) {
      if (opts?.confirmWithinS !== undefined) return provisional(device, commands, opts.confirmWithinS, opts).then((r) => r.output);
      const r = lab.config(device, commands);
      return r.ok ? Promise.resolve(r.output) : Promise.reject(new DeviceToolError('config_cli', r.error));
    },
    configProvisional: provisional,
    confirmChange: (device, changeId) => settled('confirm_change', lab.confirmChange(device, changeId)),
    rollbackChange: (device, changeId, reason) => settled('rollback_change', lab.rollbackChange(device, changeId, reason)),
    changeStatus: (device, changeId) => settled('change_status', lab.changeStatus(device, changeId)),
    previewConfig: (device, commands) => {
      const r = labPreview(lab, device, commands);
      return r.ok ? Promise.resolve(r.preview) : Promise.reject(new DeviceToolError('preview_config', r.error));
    },
  };
}
