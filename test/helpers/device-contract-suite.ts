import { describe, expect, it } from 'vitest';
import { DeviceToolError, type DeviceTools } from '../../src/core/changes/device-contract';

/** One device behind an implementation of the device-tool contract, and lines its dialect takes. */
export interface ContractSubject {
  tools: DeviceTools;
  device: string;
  /** A read-only command the device answers, and a word its answer holds. */
  show: { command: string; holds: string };
  /** Lines that change the configuration, whose effect `show running-config` shows as `marker`. */
  change: string[];
  marker: string;
  /** Lines that take the change away again once it was confirmed. */
  undo: string[];
  /** A line the device's grammar or the device refuses. */
  refused: string[];
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => {
      expect(e).toBeInstanceOf(DeviceToolError);
      return (e as DeviceToolError).failure;
    },
  );

/**
 * The device-tool contract every implementation keeps (the device server's CLI and NETCONF drivers,
 * the simulated lab): what a caller sees, and how a failure says whether anything reached the device.
 * `subject` is called in each case (the lab or server it reads is started by the file's beforeAll).
 */
export function deviceContractSuite(name: string, subject: () => ContractSubject, opts: { skip?: boolean | string; timeoutMs?: number } = {}): void {
  const timeout = opts.timeoutMs ?? 60_000;
  const running = async (s: ContractSubject) => s.tools.execCli(s.device, 'show running-config');

  describe.skipIf(Boolean(opts.skip))(`the device-tool contract on ${name}`, () => {
    it('exec_cli answers a show command; an unknown device fails as unknown_device with nothing sent', { timeout }, async () => {
      const s = subject();
      expect(await s.tools.execCli(s.device, s.show.command)).toContain(s.show.holds);
      expect(await failureOf(s.tools.execCli('NO-SUCH-DEVICE', s.show.command))).toMatchObject({ kind: 'unknown_device', reached: false });
      expect(await failureOf(s.tools.configProvisional('NO-SUCH-DEVICE', s.change, 60))).toMatchObject({ kind: 'unknown_device', reached: false });
    });

    it('preview_config predicts the change and leaves the device as it was', { timeout }, async () => {
      const s = subject();
      const before = await running(s);
      const preview = await s.tools.previewConfig(s.device, s.change);
      expect(preview).toMatchObject({ accepted: true });
      expect(preview.added.join('\n')).toContain(s.marker);
      expect(preview.fingerprint?.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await running(s)).toBe(before);
    });

    it('a provisional change rolled back is gone, read back as before; a second rollback answers the same', { timeout }, async () => {
      const s = subject();
      const { change } = await s.tools.configProvisional(s.device, s.change, 60);
      expect(change).toMatchObject({ state: 'pending' });
      expect(await running(s)).toContain(s.marker);
      // One change at a time: a second is refused before anything is sent.
      expect(await failureOf(s.tools.configProvisional(s.device, s.change, 60))).toMatchObject({ kind: 'change_pending', reached: false });
      const rolled = await s.tools.rollbackChange(s.device, change.change_id, 'contract suite');
      expect(rolled).toMatchObject({ change_id: change.change_id, state: 'rolled_back' });
      expect(await running(s)).not.toContain(s.marker);
      expect(await s.tools.rollbackChange(s.device, change.change_id, 'again')).toMatchObject({ state: 'rolled_back' });
      expect(await failureOf(s.tools.confirmChange(s.device, change.change_id))).toMatchObject({ kind: 'not_pending', reached: false });
    });

    it('a provisional change confirmed stays; its status says so', { timeout }, async () => {
      const s = subject();
      const { change } = await s.tools.configProvisional(s.device, s.change, 60);
      expect(await s.tools.confirmChange(s.device, change.change_id)).toMatchObject({ state: 'confirmed' });
      expect(await s.tools.changeStatus(s.device, change.change_id)).toMatchObject({ state: 'confirmed' });
      expect(await running(s)).toContain(s.marker);
      const undo = await s.tools.configProvisional(s.device, s.undo, 60);
      await s.tools.confirmChange(s.device, undo.change.change_id);
      expect(await running(s)).not.toContain(s.marker);
    });

    it('a change on a configuration other than the previewed one fails as fingerprint_mismatch, nothing sent', { timeout }, async () => {
      const s = subject();
      const before = await running(s);
      const failure = await failureOf(s.tools.configProvisional(s.device, s.change, 60, { expectConfigSha256: '0'.repeat(64) }));
      expect(failure).toMatchObject({ kind: 'fingerprint_mismatch', reached: false });
      expect(await running(s)).toBe(before);
    });

    it('a refused change fails having reached the device, and the device holds what it held', { timeout }, async () => {
      const s = subject();
      const before = await running(s);
      const failure = await failureOf(s.tools.configProvisional(s.device, s.refused, 60));
      // Refused by the grammar before it was sent, or by the device and put back (read back, or never committed).
      expect(failure!.reached ? failure!.restored : true).toBe(true);
      expect(await running(s)).toBe(before);
    });
  });
}
