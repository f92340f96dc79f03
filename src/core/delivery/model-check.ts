import type { Clock } from '../clock';
import type { AgentRuntime } from '../agent-runtime';
import { errorText } from '../error-body';

export const NO_MODEL_MESSAGE = 'no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT';

export type ModelStatus =
  | { state: 'unknown'; error?: string }
  | { state: 'configured'; model: string }
  | { state: 'missing'; message: string };

/**
 * Whether the runtime has a model the operator chose. Without one, opencode quietly uses a
 * hosted default: the alert and the device output would go to a service nobody picked. Asked
 * at most every `ttlMs` (deliveries and /health share the answer), so a fixed config is seen soon.
 * An answer is never acted on once older than the TTL; past half of it, a delivery takes it and
 * asks again behind itself, so a steady flow of alerts does not wait on the runtime's config
 * (a busy runtime takes 100–300 ms to answer it: that was an alert's delivery every 5 s).
 */
export function createModelCheck(deps: { agent: AgentRuntime; agentName: string; clock: Clock; ttlMs?: number }) {
  const ttl = deps.ttlMs ?? 5000;
  let status: ModelStatus = { state: 'unknown' };
  let checkedAt = -Infinity;
  let inFlight: Promise<ModelStatus> | undefined;
  /** A question behind a delivery is waiting for that delivery to end. */
  let renewing = false;
  /** Other questions about the runtime's configuration, asked in turn with this one (never beside a delivery). */
  const also = new Set<() => Promise<void>>();

  async function ask(): Promise<ModelStatus> {
    try {
      const model = await deps.agent.configuredModel(deps.agentName);
      for (const question of also) await question().catch(() => undefined);
      status = model ? { state: 'configured', model } : { state: 'missing', message: NO_MODEL_MESSAGE };
    } catch (error) {
      // Unreachable is the runtime's problem, reported by its own check: keep the last answer.
      if (status.state === 'unknown') status = { state: 'unknown', error: errorText(error) };
      throw error;
    } finally {
      checkedAt = deps.clock.now().getTime();
      inFlight = undefined;
    }
    return status;
  }

  return {
    /**
     * Asks `question` each time the model is asked: opencode answered wrongly (a session's messages
     * lost) when its configuration was asked beside the first session of a runtime just started.
     */
    alsoAsk(question: () => Promise<void>): () => void {
      also.add(question);
      return () => void also.delete(question);
    },
    /** The last answer, without asking (for /health, which must stay cheap). */
    current: () => status,
    /**
     * Fresh enough to act on: asks the runtime when the last answer is older than the TTL. Past half
     * of it, the question behind goes out once `after` settles: a delivery passes its own end, so
     * the runtime's 50–200 ms answer to it does not run beside that delivery's session and prompt
     * (it did, on every delivery that asked: each one that many milliseconds slower).
     */
    async refresh(opts: { after?: Promise<unknown> } = {}): Promise<ModelStatus> {
      const age = deps.clock.now().getTime() - checkedAt;
      if (age < ttl && status.state !== 'unknown') {
        if (age >= ttl / 2 && !inFlight && !renewing) {
          renewing = true;
          const renew = () => {
            renewing = false;
            if (!inFlight) void (inFlight = ask()).catch(() => {});
          };
          if (opts.after) void opts.after.then(renew, renew);
          else renew();
        }
        return status;
      }
      return (inFlight ??= ask());
    },
  };
}

export type ModelCheck = ReturnType<typeof createModelCheck>;
