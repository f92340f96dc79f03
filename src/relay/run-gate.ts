import type { ModelCheck } from '../core/delivery/model-check';
import { errorText } from '../core/error-body';

/**
 * Whether a run may start now, for every path that starts one: the dispatcher's deliveries and a
 * headed terminal (`npm run headed`), which starts its run on the runtime itself. Holds are added
 * by parts started after the relay (the embedded runtime's file check, the runtime's configuration
 * check); the model check is the relay's own.
 */
export function createRunGate(deps: { modelCheck: ModelCheck }) {
  const holds = new Set<() => string | null>();
  const heldBecause = (): string | null => {
    for (const check of holds) {
      const reason = check();
      if (reason) return reason;
    }
    return null;
  };
  return {
    heldBecause,
    /** Adds a reason to hold every run while it names one; returns the function that removes it. */
    hold(check: () => string | null): () => void {
      holds.add(check);
      return () => void holds.delete(check);
    },
    /** Null when a run may start; else why not, in words that name the setting to change. */
    async mayStart(): Promise<string | null> {
      const held = heldBecause();
      if (held) return held;
      const model = await deps.modelCheck.refresh().catch((error: unknown) => ({ state: 'unknown' as const, error: errorText(error) }));
      if (model.state === 'missing') return model.message;
      if (model.state === 'unknown') return `the agent runtime did not say which model it uses${model.error ? ` (${model.error})` : ''}`;
      return null;
    },
  };
}
