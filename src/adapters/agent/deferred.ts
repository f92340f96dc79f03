import { AgentRuntimeError, type AgentRuntime } from '../../core/agent-runtime';

/**
 * A runtime handle that exists before the runtime does. The relay must listen
 * before the embedded runtime starts (the agents connect to the relay's tools at
 * start-up), and alerts arriving in between are queued like any unreachable case.
 */
export function createDeferredRuntime(): AgentRuntime & { attach(runtime: AgentRuntime): void } {
  let target: AgentRuntime | null = null;
  let onAttached: () => void = () => {};
  const attached = new Promise<void>((resolve) => (onAttached = resolve));
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
      onAttached();
    },
    health: () => Promise.resolve().then(() => get().health()),
    createSession: (input) => Promise.resolve().then(() => get().createSession(input)),
    renameSession: (id, title) => Promise.resolve().then(() => get().renameSession(id, title)),
    deleteSession: (id) => Promise.resolve().then(() => get().deleteSession(id)),
    promptAsync: (id, input) => Promise.resolve().then(() => get().promptAsync(id, input)),
    getSession: (id) => Promise.resolve().then(() => get().getSession(id)),
    listSessions: () => Promise.resolve().then(() => get().listSessions()),
    getMessages: (id) => Promise.resolve().then(() => get().getMessages(id)),
    sessionStatus: () => Promise.resolve().then(() => get().sessionStatus()),
    abort: (id) => Promise.resolve().then(() => get().abort(id)),
    configuredModel: (name) => Promise.resolve().then(() => get().configuredModel(name)),
    // The event follower starts with the relay: it waits for the runtime instead of failing.
    async followEvents(onEvent, opts) {
      const aborted = new Promise<void>((resolve) => opts.signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([attached, aborted]);
      if (opts.signal.aborted || !target) return;
      return target.followEvents(onEvent, opts);
    },
    close: async () => {
      await target?.close();
    },
  };
}
