import { AgentRuntimeError, type AgentRuntime, type Session } from '../../src/core/agent-runtime';

/**
 * A runtime whose availability the test controls, for route and dispatcher logic.
 * End-to-end behaviour is tested against the real opencode server elsewhere.
 */
export function createStubRuntime() {
  let down: AgentRuntimeError | null = null;
  const sessions: Session[] = [];
  const prompts: { sessionId: string; agent?: string; text: string; noReply?: boolean }[] = [];
  /** Sessions the relay stopped. */
  const aborted: string[] = [];
  let seq = 0;
  const check = () => {
    if (down) throw down;
  };
  const runtime: AgentRuntime & {
    sessions: Session[];
    prompts: typeof prompts;
    aborted: string[];
    /** What configuredModel() reports; null: no model configured. */
    model: string | null;
    setDown(kind?: 'unreachable' | 'server' | 'auth'): void;
    setUp(): void;
  } = {
    url: 'http://127.0.0.1:1',
    sessions,
    prompts,
    aborted,
    setDown(kind = 'unreachable') {
      down = new AgentRuntimeError(kind, kind === 'auth' ? 'credentials rejected (HTTP 401)' : 'connect ECONNREFUSED 127.0.0.1:1');
    },
    setUp() {
      down = null;
    },
    async health() {
      check();
      return { healthy: true, version: 'stub' };
    },
    async createSession({ title }) {
      check();
      const s = { id: `ses_stub${String(++seq).padStart(4, '0')}`, title };
      sessions.push(s);
      return s;
    },
    async renameSession(id, title) {
      check();
      const s = sessions.find((x) => x.id === id);
      if (!s) throw new AgentRuntimeError('not_found', `Session not found: ${id}`, 404);
      s.title = title;
    },
    async deleteSession(id) {
      check();
      const at = sessions.findIndex((x) => x.id === id);
      if (at >= 0) sessions.splice(at, 1);
    },
    async promptAsync(sessionId, input) {
      check();
      if (!sessions.some((s) => s.id === sessionId)) throw new AgentRuntimeError('not_found', `Session not found: ${sessionId}`, 404);
      prompts.push({ sessionId, ...input });
    },
    model: 'stub/stub',
    async configuredModel() {
      check();
      return runtime.model;
    },
    async getSession(id) {
      check();
      const s = sessions.find((x) => x.id === id);
      if (!s) throw new AgentRuntimeError('not_found', `Session not found: ${id}`, 404);
      return s;
    },
    async listSessions() {
      check();
      return [...sessions];
    },
    async getMessages(id) {
      check();
      return prompts
        .filter((p) => p.sessionId === id)
        .map((p, i) => ({ info: { id: `msg_${i}`, sessionID: id, role: 'user' as const, agent: p.agent, time: { created: i } }, parts: [{ id: `prt_${i}`, type: 'text', text: p.text }] }));
    },
    async sessionStatus() {
      check();
      return {};
    },
    async abort(sessionId) {
      aborted.push(sessionId);
    },
    async followEvents() {},
    async close() {},
  };
  return runtime;
}
