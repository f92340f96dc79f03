import { DeviceToolError, type ChangeStatus, type DeviceTools } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';

/**
 * A device tool server stand-in whose neighbor never comes up (every post-check fails) and whose
 * rollbacks fail with what still differs, as a router that refuses to take its configuration back
 * would: for relay tests of what follows a rollback_failed. `rollbackWorks` makes it put changes back;
 * `readsWaitFor` holds every show command (the relay's post-check) until it resolves.
 */
export function unrollableDevice(opts: { rollbackWorks?: () => boolean; readsWaitFor?: Promise<void> } = {}): DeviceTools & { changes: Map<string, ChangeStatus> } {
  const changes = new Map<string, ChangeStatus>();
  let n = 0;
  const known = (tool: 'confirm_change' | 'rollback_change' | 'change_status', id: string) => {
    const c = changes.get(id);
    if (!c) throw new DeviceToolError(tool, `[not_pending] no change ${id}`, deviceFailure('not_pending', false));
    return c;
  };
  return {
    changes,
    execCli: async (device) => (await opts.readsWaitFor, `BGP neighbor is 10.0.0.2, remote AS 65002\n  BGP state = Idle (on ${device})`),
    configCli: async () => '',
    async configProvisional(device, _commands, s) {
      const change: ChangeStatus = { change_id: `chg-${++n}`, device, state: 'pending', deadline: new Date(Date.now() + s * 1000).toISOString() };
      changes.set(change.change_id, change);
      return { output: 'applied', change: { ...change } };
    },
    async confirmChange(_device, id) {
      const c = known('confirm_change', id);
      if (c.state !== 'pending') throw new DeviceToolError('confirm_change', `[not_pending] change ${id} was ${c.state}`, deviceFailure('not_pending', false));
      c.state = 'confirmed';
      return { ...c };
    },
    async rollbackChange(_device, id, reason) {
      const c = known('rollback_change', id);
      if (c.state !== 'pending') return { ...c };
      if (opts.rollbackWorks?.()) Object.assign(c, { state: 'rolled_back', reason, detail: 'running configuration read back: it matches the one before the change' });
      else Object.assign(c, { state: 'rollback_failed', reason, detail: 'the running configuration still differs from before: no neighbor 10.0.0.2 shutdown' });
      return { ...c };
    },
    changeStatus: async (_device, id) => ({ ...known('change_status', id) }),
    previewConfig: async (device) => ({ device, accepted: true, method: 'predicted', added: [], removed: [], problems: [] }),
  };
}
