import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../../harness/raw-tests/clock';
import { DeviceToolError } from '../../src/core/changes/device-contract';
import { createMcpDeviceTools, type McpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { startLab, type RunningLab } from '../../harness/ios-lab/server';

let running: RunningLab;
let clock: VirtualClock;
let tools: McpDeviceTools;

beforeAll(async () => {
  clock = createVirtualClock();
  running = await startLab({ host: '127.0.0.1', port: 0, clock, convergeDelayMs: 5000, logger: pino({ level: 'silent' }) });
  tools = createMcpDeviceTools(running.mcpUrl);
});
afterAll(async () => {
  await tools?.close();
  await running?.stop();
});
beforeEach(() => running.lab.reset());

const shutdown = ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'];
/** R1's running configuration without the lines a rollback itself changes (size, time of the last change). */
const running_ = async () => (await tools.execCli('R1', 'show running-config')).replace(/^(Current configuration|! Last configuration change).*$/gm, '');
const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as DeviceToolError);

describe('provisional changes on the simulated lab, over MCP', () => {
  it('a confirmed change stays; confirming it again is refused naming its state', async () => {
    const { output, change } = await tools.configProvisional('R1', shutdown, 60);
    expect(output).toContain('R1(config-router)#neighbor 10.0.0.2 shutdown');
    expect(change).toMatchObject({ device: 'R1', state: 'pending', deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    expect(await tools.confirmChange('R1', change.change_id)).toMatchObject({ state: 'confirmed' });
    clock.advance(120_000);
    expect(await running_()).toContain('neighbor 10.0.0.2 shutdown');
    const again = await refusal(tools.confirmChange('R1', change.change_id));
    expect(again).toBeInstanceOf(DeviceToolError);
    expect(again!.message).toMatch(new RegExp(`change ${change.change_id} was confirmed at `));
  });

  it('a change not confirmed in time is rolled back on the lab\'s clock, with reason deadline', async () => {
    const before = await running_();
    const { change } = await tools.configProvisional('R1', shutdown, 10);
    clock.advance(9_999);
    expect(await tools.changeStatus('R1', change.change_id)).toMatchObject({ state: 'pending' });
    clock.advance(1);
    expect(await tools.changeStatus('R1', change.change_id)).toMatchObject({ state: 'rolled_back', reason: 'deadline', detail: expect.stringContaining('matches') });
    expect(await running_()).toBe(before);
    const late = await refusal(tools.confirmChange('R1', change.change_id));
    expect(late!.message).toMatch(new RegExp(`change ${change.change_id} was rolled back \\(deadline\\) at `));
  });

  it('a requested rollback restores the configuration, is idempotent, and frees the device for the next change', async () => {
    const before = await running_();
    const { change } = await tools.configProvisional('R1', shutdown, 60);
    const busy = await refusal(tools.configProvisional('R1', ['router bgp 65001', 'neighbor 10.0.0.2 description x'], 60));
    expect(busy!.message).toMatch(new RegExp(`^\\[change_pending\\] R1: change ${change.change_id} is pending`));
    const rolled = await tools.rollbackChange('R1', change.change_id, 'post-check failed');
    expect(rolled).toMatchObject({ state: 'rolled_back', reason: 'post-check failed' });
    expect(await tools.rollbackChange('R1', change.change_id, 'again')).toEqual(rolled);
    expect(await running_()).toBe(before);
    expect((await tools.configProvisional('R1', shutdown, 60)).change.state).toBe('pending');
    // config_cli without confirm_within_s applies at once, as before.
    expect(await tools.configCli('R2', ['router bgp 65002', 'neighbor 10.0.0.1 description plain'])).toContain('description plain');
    expect((await refusal(tools.changeStatus('R1', 'chg-nope')))!.message).toBe('[not_pending] % change chg-nope is unknown on R1');
  });

  it('the in-process tools give the same answers', async () => {
    const local = createLabDeviceTools(running.lab);
    const { change } = await local.configProvisional('R1', shutdown, 30);
    expect(await local.changeStatus('R1', change.change_id)).toEqual(change);
    expect(await local.rollbackChange('R1', change.change_id, 'requested')).toMatchObject({ state: 'rolled_back', reason: 'requested' });
    await expect(local.confirmChange('R1', change.change_id)).rejects.toThrow(/was rolled back \(requested\)/);
  });
});
