import type { ConfigPreview } from '../../runbooks/config-preview';
import type { ApplyOptions, DeviceDriver } from './driver';
import type { NetconfDevice } from './netconf/device';
import { previewNetconf } from './netconf/preview';
import type { SeenConfigs } from './config-fingerprint';

/**
 * A NETCONF device (netconf/device.ts): the approved lines are one `<config>` element, applied with a
 * confirmed commit the device reverts by itself unless it is confirmed.
 */
export class NetconfDriver implements DeviceDriver {
  readonly revertsItself = true;

  constructor(
    private readonly device: NetconfDevice,
    private readonly knownHostsPath: string,
    private readonly seen: SeenConfigs,
  ) {}

  exec(command: string): Promise<string> {
    return this.device.show(command);
  }

  preview(lines: string[], exclusive: <T>(work: () => Promise<T>) => Promise<T>): Promise<ConfigPreview> {
    return exclusive(() => previewNetconf(this.device.entry, this.knownHostsPath, lines, (l) => this.seen.remember(this.device.entry.name, l)));
  }

  applyProvisional(lines: string[], opts: ApplyOptions): Promise<string> {
    return this.device.change(lines, opts.confirmWithinS, opts.expectSha256);
  }

  confirm(): Promise<string> {
    return this.device.confirm();
  }

  /** Cancels the confirmed commit and reads running back; the device's refusal to match throws (rollback_failed). */
  async rollback(): Promise<{ restored: boolean; detail: string }> {
    return { restored: true, detail: await this.device.cancel() };
  }

  pending(): { deadline: Date; timeoutS: number } | undefined {
    const p = this.device.pending;
    return p && !p.session.closed ? { deadline: new Date(p.deadline), timeoutS: p.timeoutS } : undefined;
  }

  /** The device reverts an unconfirmed change when the session that made it ends: nothing for the server to do. */
  onSessionLost(): void {}

  drop(): void {
    this.device.drop();
  }

  close(): Promise<void> {
    return this.device.close();
  }
}
