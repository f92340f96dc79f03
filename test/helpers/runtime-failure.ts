import { expect } from 'vitest';
import { AgentRuntimeError } from '../../src/core/agent-runtime';

/** Awaits a call that must fail with an AgentRuntimeError, and returns that error. */
export async function runtimeFailure(p: Promise<unknown>): Promise<AgentRuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentRuntimeError);
  return error as AgentRuntimeError;
}
