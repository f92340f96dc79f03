import { DeviceToolError, type DeviceToolName, type DeviceTools } from '../../core/changes/device-contract';
import type { DeviceService } from './device-service';
import { DeviceError } from './errors';

/** Runs `work`, giving a device failure to the contract as the tool's DeviceToolError (its kind and flags as they are). */
async function asTool<T>(tool: DeviceToolName, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof DeviceError ? new DeviceToolError(tool, error.message, error.failure) : error;
  }
}

/** The device service as the DeviceTools port: what the device server registers on MCP (register-device-tools.ts). */
export function serviceDeviceTools(service: DeviceService): DeviceTools {
  return {
    execCli: (device, command) => asTool('exec_cli', () => service.exec(device, command)),
    configCli: (device, commands, o) =>
      asTool('config_cli', async () =>
        o?.confirmWithinS === undefined ? service.config(device, commands, o?.expectConfigSha256) : (await service.changes.apply(device, commands, o.confirmWithinS, o.expectConfigSha256)).output,
      ),
    configProvisional: (device, commands, s, o) => asTool('config_cli', () => service.changes.apply(device, commands, s, o?.expectConfigSha256, o?.changeId)),
    confirmChange: (device, id) => asTool('confirm_change', () => service.changes.confirm(device, id)),
    rollbackChange: (device, id, reason) => asTool('rollback_change', () => service.changes.rollback(device, id, reason)),
    changeStatus: (device, id) => asTool('change_status', () => service.changes.status(device, id)),
    previewConfig: (device, commands) => asTool('preview_config', () => service.preview(device, commands)),
  };
}
