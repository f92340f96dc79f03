import { afterEach, describe, expect, it } from 'vitest';
import { fileQuarantine } from '../../src/core/quarantine/file-backend';
import { ana, quarantineRelay, REPAIR, vic } from '../helpers/quarantine-relay';
import { DeviceToolError } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';
import { untilIncident } from '../helpers/incident-waits';
import { waitUntil } from '../helpers/opencode';
import { tempDir } from '../helpers/temp-dir';
import { unrollableDevice } from '../helpers/unrollable-device';
import { createManualClock } from '../unit/messaging/helpers';
import { decideAs } from '../helpers/decide-as';

/**
 * A device whose change could not be put back is quarantined: no card and no configuration reach
 * it, from any incident, until an approver clears it; /health names it; the quarantine outlives a
 * restart of the relay.
 */
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});
const start = async (opts: Parameters<typeof quarantineRelay>[0] = {}) => {
  const t = await quarantineRelay(opts);
  open.push(t);
  return t;
};

describe('quarantined devices', () => {
  it('a rollback that fails quarantines the device: the next request gets no card and escalates; a viewer cannot clear it, an approver can', async () => {
    const t = await start();
    const first = await t.unrolled();
    expect(t.relay.incidents.get(first)!.change).toMatchObject({ state: 'rollback_failed' });
    const quarantined = t.relay.incidents.timeline(first).find((e) => e.type === 'device.quarantined')!;
    expect(quarantined).toMatchObject({ device: 'R1', reason: expect.stringMatching(/ROLLBACK FAILED \(post-check failed\)/) });

    const health = await t.health();
    expect(health.status).toBe('degraded');
    expect(health.reasons?.join('\n')).toMatch(/^R1 is quarantined since \S+: change chg-1 of /m);
    expect(health.quarantined_devices).toEqual([expect.objectContaining({ device: 'R1', incident_id: first })]);

    // A second incident on the device: its request is answered with the reason, no card, the run escalated.
    const second = await t.fire('10.0.0.3');
    const answer = await t.ask(second);
    expect(answer.json).toMatchObject({ status: 'escalated_quarantined', device: 'R1', reason: expect.stringMatching(/^R1 is quarantined since .*ROLLBACK FAILED/) });
    expect(t.relay.incidents.get(second)).toMatchObject({ state: 'escalated', approval_request: null });
    const types = t.relay.incidents.timeline(second).map((e) => e.type);
    expect(types).toContain('approval.quarantined');
    expect(types).not.toContain('approval.requested');

    // Clearing takes an approver's own token.
    const anon = await t.clear('R1');
    expect(anon.statusCode, anon.body).toBe(401);
    const viewer = await t.clear('R1', vic.token);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ error: { code: 'not_an_approver', message: expect.stringMatching(/only approvers clear a quarantined device/) } });
    expect((await t.clear('R1', 'tok')).statusCode).toBe(401);
    const unknown = await t.clear('R9', ana.token);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_quarantined' } });
    expect((await t.clear('R1;reboot', ana.token)).statusCode).toBe(400);
    expect((await t.health()).status).toBe('degraded');

    const cleared = await t.clear('r1', ana.token);
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({ status: 'cleared', device: 'R1', by: 'ana@example.net', was: { incident_id: first, change_id: 'chg-1' } });
    expect(t.relay.incidents.timeline(first).find((e) => e.type === 'device.cleared')).toMatchObject({ device: 'R1', by: 'ana@example.net' });
    expect(await t.health()).not.toHaveProperty('quarantined_devices');
    expect((await t.clear('R1', ana.token)).statusCode).toBe(404);

    // Cleared: a new incident on R1 is asked as before.
    const third = await t.fire('10.0.0.4');
    expect((await t.ask(third)).json).toMatchObject({ status: 'pending' });
  });

  it('an approval given before the quarantine applies nothing on the quarantined device', async () => {
    const t = await start();
    // Approved while the device is still clean; the other incident's rollback fails before it is applied.
    const later = await t.fire('10.0.0.3');
    expect((await t.ask(later)).json).toMatchObject({ status: 'pending' });
    await decideAs(t.relay, later, 'APPROVED', 'ana@example.net');
    await t.unrolled();
    const refused = await t.device.call('config_cli', { incident_id: later, device: 'R1', commands: REPAIR });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/REFUSED by the relay's device guard: R1 is quarantined since .*Nothing was sent/);
    expect(t.relay.incidents.get(later)!.change).toBeNull();
  });

  it('the quarantine is kept in the data folder: a restarted relay still honours it', async () => {
    const dir = tempDir('fault-relay-quarantine-data-');
    const before = await quarantineRelay({ quarantine: fileQuarantine(dir) });
    await before.unrolled();
    await before.close();

    const after = await start({ quarantine: fileQuarantine(dir) });
    expect((await after.health()).reasons?.join('\n')).toMatch(/^R1 is quarantined since /m);
    const id = await after.fire('10.0.0.3');
    expect((await after.ask(id)).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });
    expect((await after.clear('R1', ana.token)).statusCode).toBe(200);
    // Cleared in the file too: the next start has nothing quarantined.
    expect(await fileQuarantine(dir).load()).toEqual([]);
  });

  it('a change whose end the relay never learns (the device tool server silent past its deadline) quarantines the device, naming why', async () => {
    const clock = createManualClock(Date.now());
    // The post-check's read never answers, and the server answers no question about the change.
    const device = unrollableDevice({ readsWaitFor: new Promise(() => undefined) });
    const silentServer = (tool: 'change_status' | 'rollback_change') => async () => {
      throw new DeviceToolError(tool, '[internal] the device tool server is not answering', deviceFailure('internal', true));
    };
    const t = await start({ device: { ...device, changeStatus: silentServer('change_status'), rollbackChange: silentServer('rollback_change') }, clock });
    const first = await t.fire('10.0.0.2');
    expect((await t.ask(first)).json).toMatchObject({ status: 'pending' });
    await decideAs(t.relay, first, 'APPROVED', 'ana@example.net');
    const applied = await t.device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);

    // Time passes on the relay's clock until it stops asking: its deadline, then every try after it.
    await waitUntil(async () => {
      clock.advance(60_000);
      return t.relay.incidents.timeline(first).some((e) => e.type === 'device.quarantined');
    }, 'the device is quarantined');
    const quarantined = t.relay.incidents.timeline(first).find((e) => e.type === 'device.quarantined')!;
    expect(quarantined.reason).toMatch(/^the state of change chg-1 of \S+ was never learned \(the device tool server did not answer \(.*not answering\)\): whether it was rolled back is not known$/);
    expect((await t.health()).reasons?.join('\n')).toMatch(/^R1 is quarantined since \S+: the state of change chg-1 of .* was never learned/m);
    const second = await t.fire('10.0.0.3');
    expect((await t.ask(second)).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });
    await untilIncident(t.relay, second, (i) => i.state === 'escalated');
  });

  it.each([
    ['the session broke mid-change and no new session could put it back', '[session_lost] R1: the change had begun when the session failed (R1: the SSH session closed); lines may have been applied: check the device', deviceFailure('session_lost', true), true],
    ['the rollback after a refused line is incomplete', '[rejected] R1 refused line 2 of 2 "no neighbor 10.0.0.2 shutdown": % Unknown command. ROLLBACK INCOMPLETE: the running configuration still differs from before: neighbor 10.0.0.2 shutdown', deviceFailure('rejected', true, { restored: false }), true],
    ['the session broke and a new one read the device back as before', '[session_lost] R1: the change was interrupted (R1: the SSH session closed). Rolled back on a new session: the running configuration matches the one before the change.', deviceFailure('session_lost', true, { restored: true }), false],
  ] as const)('a change that fails part-way (%s) quarantines the device, read from its structured failure, unless it was read back as before', async (_what, message, failure, quarantined) => {
    const device = unrollableDevice();
    const t = await start({
      device: {
        ...device,
        configProvisional: async () => {
          throw new DeviceToolError('config_cli', message, failure);
        },
      },
    });
    const first = await t.fire('10.0.0.2');
    expect((await t.ask(first)).json).toMatchObject({ status: 'pending' });
    await decideAs(t.relay, first, 'APPROVED', 'ana@example.net');
    const failed = await t.device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR });
    expect(failed.isError).toBe(true);
    const entry = t.relay.incidents.timeline(first).find((e) => e.type === 'device.quarantined');
    if (!quarantined) {
      expect(entry).toBeUndefined();
      expect((await t.health()).quarantined_devices).toBeUndefined();
      return;
    }
    expect(entry?.reason).toMatch(new RegExp(`^a change of ${first} failed part-way on R1 and the device was not read back as before \\(\\[`));
    const second = await t.fire('10.0.0.3');
    expect((await t.ask(second)).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1', reason: expect.stringMatching(/^R1 is quarantined since \S+: a change of /) });
  });
});
