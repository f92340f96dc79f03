import { expect } from 'vitest';
import { DeviceError } from '../../src/adapters/devices/errors';

/** The DeviceError a device call must fail with (a call that succeeds fails the test). */
export async function failure(work: Promise<unknown>): Promise<DeviceError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeviceError);
  return error as DeviceError;
}
