import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { AgentRuntime } from '../agent-runtime';

/** What a session made ready ahead of time is called in the runtime (its terminal lists it so). */
export const SPARE_TITLE_PREFIX = 'Fault Relay: ready for the next alert';

/** The spare's title names its relay: relays sharing one runtime never take each other's. */
export const spareTitle = (relayTag: string) => `${SPARE_TITLE_PREFIX} (${relayTag})`;

/** A laptop relay's tag: its data folder (what its incidents are), hashed so no path is shown. */
export const localRelayTag = (dataDir: string) => createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 8);

export const isSpareTitle = (title: string | undefined) => title?.startsWith(SPARE_TITLE_PREFIX) ?? false;

export interface SpareSession {
  /** The ready session's id, now this caller's alone, or null when none is ready. */
  take(): string | null;
  /** Makes one ready in the background unless one is ready or on its way. */
  fill(): void;
  /** Waits for a fill on its way and removes the unused spare from the runtime. */
  stop(): Promise<void>;
}

/**
 * One agent session per relay, created while no alert waits, so a new alert's delivery is one
 * runtime call (the prompt) instead of two. Only the relay's own spares are reused: at the first
 * fill, an empty one left by an earlier run of this relay (a crash, a stop that could not remove
 * it) is taken up again, and any further empty ones are removed. A spare with messages is an
 * incident's, prompted before a crash; the dispatcher finds it by its prompt, never here.
 */
export function createSpareSession(deps: {
  agent: Pick<AgentRuntime, 'createSession' | 'listSessions' | 'getMessages' | 'deleteSession'>;
  relayTag: string;
  logger: Logger;
}): SpareSession {
  const { agent, logger } = deps;
  const title = spareTitle(deps.relayTag);
  let ready: string | null = null;
  let filling: Promise<void> | null = null;
  let leftoversSeen = false;
  let stopped = false;

  async function takeUpLeftovers() {
    const mine = (await agent.listSessions()).filter((s) => s.title === title && !s.parentID);
    for (const s of mine) {
      if ((await agent.getMessages(s.id)).length > 0) continue;
      if (ready === null) ready = s.id;
      else await agent.deleteSession(s.id);
    }
    leftoversSeen = true;
  }

  async function fillOnce() {
    if (!leftoversSeen) await takeUpLeftovers();
    if (ready === null && !stopped) ready = (await agent.createSession({ title })).id;
  }

  return {
    take() {
      const id = ready;
      ready = null;
      return id;
    },
    fill() {
      if (stopped || ready !== null || filling) return;
      filling = fillOnce()
        // The runtime may be starting or down: the next delivery creates its own session and fills again.
        .catch((error: unknown) => logger.debug({ err: error }, 'no spare agent session made ready'))
        .finally(() => (filling = null));
    },
    async stop() {
      stopped = true;
      await filling;
      const id = ready;
      ready = null;
      // Left behind (runtime gone), it is taken up again at the next start.
      if (id) await agent.deleteSession(id).catch(() => {});
    },
  };
}
