import { DeviceToolError, type ChangeStatus, type DeviceTools } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';

/**
 * The provisional half of DeviceTools over a stand-in's own `configCli`: the change is applied by it
 * and kept pending in memory until confirmed or rolled back (nothing is put back: a stand-in has no
 * configuration to restore). For guard tests that fake the device tool server.
 */
export function provisionalOver(configCli: DeviceTools['configCli']): Omit<DeviceTools, 'execCli' | 'configCli'> {
  const changes = new Map<string, ChangeStatus>();
  let n = 0;
  const known = (tool: 'confirm_change' | 'rollback_change' | 'change_status', id: string) => {
    const c = changes.get(id);
    if (!c) throw new DeviceToolError(tool, `[not_pending] no change ${id}`, deviceFailure('not_pending', false));
    return c;
  };
  return {
    async configProvisional(device, commands, s) {
      const output = await configCli(device, commands);
      const change: ChangeStatus = { change_id: `chg-${++n}`, device, state: 'pending', deadline: new Date(Date.now() + s * 1000).toISOString() };
      changes.set(change.change_id, change);
      return { output, change };
    },
    async confirmChange(_device, id) {
      const c = known('confirm_change', id);
      if (c.state !== 'pending') throw new DeviceToolError('confirm_change', `[not_pending] change ${id} was ${c.state}`, deviceFailure('not_pending', false));
      c.state = 'confirmed';
      return { ...c };
    },
    async rollbackChange(_device, id, reason) {
      const c = known('rollback_change', id);
      if (c.state === 'pending') Object.assign(c, { state: 'rolled_back', reason });
      return { ...c };
    },
    async changeStatus(_device, id) {
      return { ...known('change_status', id) };
    },
    // A stand-in has no configuration to diff: an accepted, empty preview.
    async previewConfig(device) {
      return { device, accepted: true, method: 'predicted', added: [], removed: [], problems: [] };
    },
  };
}

/** A stand-in whose configuration changes are kept provisional by `provisionalOver` its own configCli. */
export const withProvisional = (tools: DeviceTools): DeviceTools => ({ ...tools, ...provisionalOver((d, c, o) => tools.configCli(d, c, o)) });
