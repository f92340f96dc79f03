import { afterEach, describe, expect, it } from 'vitest';
import { DeviceService } from '../../../src/adapters/devices/device-service';
import { tempDir } from '../../helpers/temp-dir';
import { startFakeCliDevice, type FakeCliDevice } from './fake-cli-device';
import { failure } from '../../helpers/device-failure';

let fake: FakeCliDevice | undefined;
let service: DeviceService | undefined;

afterEach(async () => {
  await service?.close();
  await fake?.stop();
  service = fake = undefined;
});


describe('a command that times out on a device', () => {
  it('is interrupted; the session is kept only once it answers a line sent after the interrupt, and the late output is dropped', async () => {
    fake = await startFakeCliDevice('line-while-busy');
    // The slow command never ends on its own, so its 1 s limit always passes; the wait after the interrupt is a ceiling.
    service = new DeviceService(fake.inventoryIn(tempDir('fault-relay-cli-'), 1000), undefined, { interruptWaitMs: 30_000 });
    expect(await service.exec('R1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    const error = await failure(service.exec('R1', 'show slow'));
    expect(error).toMatchObject({ kind: 'timeout', reached: true });
    expect(error.message).toBe('R1: no prompt after "show slow" within 1 s; it was interrupted on the device and the session answered again');
    expect(fake.interrupts()).toBe(1);
    // The same session, in step: its next answer is its own, not the slow command's late output.
    expect(await service.exec('R1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    expect(fake.sessions()).toBe(1);
  });

  it('is not fooled by the prompt the CLI prints on Ctrl-C: no answer, so the session is closed and replaced', async () => {
    fake = await startFakeCliDevice('never');
    service = new DeviceService(fake.inventoryIn(tempDir('fault-relay-cli-'), 1000), undefined, { interruptWaitMs: 200 });
    expect(await service.exec('R1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    const closing = fake.nextClose();
    const error = await failure(service.exec('R1', 'show slow'));
    expect(error.message).toBe('R1: no prompt after "show slow" within 1 s; the session was closed and the next call opens a new one');
    await closing;
    expect(fake.interrupts()).toBeGreaterThanOrEqual(1);
    expect(await service.exec('R1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    expect(fake.sessions()).toBe(2);
  });

  it('a catastrophic filter is refused before the device is reached', async () => {
    fake = await startFakeCliDevice('never');
    service = new DeviceService(fake.inventoryIn(tempDir('fault-relay-cli-'), 1000));
    for (const pattern of ['(a+)+$', '(.*)*x', '(.*)(.*)\\2\\1z', 'a'.repeat(10_000), '((a|b))c']) {
      const error = await failure(service.exec('R1', `show ip bgp | include ${pattern}`));
      expect(error).toMatchObject({ kind: 'not_in_grammar', reached: false });
    }
    expect(fake.connections()).toBe(0);
    expect(await service.exec('R1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    expect(fake.connections()).toBe(1);
  });
});
