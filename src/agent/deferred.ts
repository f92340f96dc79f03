import { AgentRuntimeError, type AgentRuntime } from './types';

/**
 * A runtime handle that exists before the runtime does. The relay must listen
 * before the embedded runtime starts (the agents connect to the relay's tools at
 * start-up), and alerts arriving in between are queued like any unreachable case.
 */
export function createDeferredRuntime(): AgentRuntime & { attach(runtime: AgentRuntime): void } {
  let target: AgentRuntime | null = null;
  const get = () => {
    if (!target) throw new AgentRuntimeError('unreachable', 'the agent runtime is still starting');
    return target;
  };
  return {
    get url() {
      return target?.url ?? 'starting';
    },
    attach(runtime) {
      target = runtime;
    },
    health: () => Promise.resolve().then(() => get().health()),
    createSession: (input) => Promise.resolve().then(() => get().createSession(input)),
    promptAsync: (id, input) => Promise.resolve().then(() => get().promptAsync(id, input)),
    getSession: (id) => Promise.resolve().then(() => get().getSession(id)),
    listSessions: () => Promise.resolve().then(() => get().listSessions()),
    abort: (id) => Promise.resolve().then(() => get().abort(id)),
    followEvents: (onEvent, opts) => Promise.resolve().then(() => get().followEvents(onEvent, opts)),
    close: async () => {
      await target?.close();
    },
  };
}
